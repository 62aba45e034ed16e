import Foundation
import Testing
import URLSessionSupport

@testable import PolySignaling

/// BridgeClient against a real HTTPServer on 127.0.0.1 (retries in virtual time).
@Suite struct ServerClientTests {
    func client(_ bridge: TestBridge, token: String = TestBridge.webToken, sleeps: VirtualSleeps = VirtualSleeps())
        -> BridgeClient
    {
        BridgeClient(
            configuration: .init(baseURL: bridge.baseURL, webCallingToken: token), transport: URLSessionTransport(),
            environment: sleeps.environment)
    }

    @Test func provisionConnectHangUpRoundTrip() async throws {
        let bridge = try TestBridge()
        let client = client(bridge)
        let call = try await client.provision()
        #expect(call.callId == "call-1")
        #expect(call.token == TestBridge.callToken)
        #expect(call.eventsURL?.absoluteString == "ws://127.0.0.1:\(bridge.server.port)/api/v1/call/call-1/events")
        #expect(try await client.connect(offerSDP: "offer") == "answer-to-offer-call-1")
        await client.hangUp()
        #expect(bridge.state.log.withLock { $0 } == ["provision", "delete call-1 \(TestBridge.callToken)"])
        #expect(bridge.state.remotes.withLock { $0 } == ["127.0.0.1"])
    }

    @Test func errorStatusesOverTheWire() async throws {
        let bridge = try TestBridge()
        await #expect(throws: SignalingError.unauthorized) {
            try await client(bridge, token: "wrong-token-000000").provision()
        }
        await #expect(throws: SignalingError.forbidden(route: "provision")) {
            try await client(bridge).provision(mode: "echo")
        }
        let notFound = BridgeClient(
            configuration: .init(baseURL: bridge.baseURL.appendingPathComponent("nowhere/"), webCallingToken: "t"),
            transport: URLSessionTransport())
        await #expect(throws: SignalingError.signalingFailed("Bridge provision failed (404)")) {
            try await notFound.provision()
        }
    }

    @Test func retryAfterThenSuccess() async throws {
        let bridge = try TestBridge(provisionScript: [(429, ["Retry-After": "2"]), (503, [:])])
        let sleeps = VirtualSleeps()
        _ = try await client(bridge, sleeps: sleeps).provision()
        #expect(sleeps.durations.count == 2)
        #expect(sleeps.durations.first == .seconds(2))
        #expect(bridge.state.log.withLock { $0.count } == 3)
    }

    @Test func badJSONFromBridgeIsATypedError() async throws {
        let bridge = try TestBridge()
        bridge.state.provisionBody.withLock { $0 = #"{"callId":"c","creds":{"token":"x"}}"# }
        await #expect(throws: SignalingError.malformedResponse(route: "provision", .missingField("creds.connectUrl"))) {
            try await client(bridge).provision()
        }
        bridge.state.provisionBody.withLock { $0 = "not json" }
        await #expect(throws: SignalingError.malformedResponse(route: "provision", .invalidJSON)) {
            try await client(bridge).provision()
        }
    }

    @Test func bodyTooLargeIs413() async throws {
        let bridge = try TestBridge(maxBodyBytes: 1024)
        let response = try await URLSessionTransport().perform(
            HTTPClientRequest(
                method: "POST", url: bridge.baseURL.appendingPathComponent("api/v1/call"),
                body: [UInt8](repeating: 0x61, count: 5000)))
        #expect(response.status == 413)
        #expect(try MessageCoding.decode(ErrorBody.self, from: response.body).error == "body_too_large")
        #expect(bridge.state.log.withLock { $0.isEmpty })
        // The server keeps serving after a 413.
        _ = try await client(bridge).provision()
    }

    @Test func concurrentRequestsAreAllAnswered() async throws {
        let bridge = try TestBridge()
        let answers = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<20 {
                group.addTask {
                    let client = client(bridge)
                    try await client.provision()
                    return try await client.connect(offerSDP: "o\(index)")
                }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(answers == Set((0..<20).map { "answer-to-o\($0)-call-1" }))
    }

    @Test func perCallTokenRejectedOverTheWire() async throws {
        let bridge = try TestBridge()
        let client = client(bridge)
        var call = try await client.provision()
        call.token = "not-the-call-token-000"
        await client.adopt(call)
        await #expect(throws: SignalingError.callTokenRejected(route: "connect")) {
            try await client.connect(offerSDP: "o")
        }
    }

    @Test func portInUseFailsToStart() throws {
        let bridge = try TestBridge()
        #expect(throws: SignalingError.self) {
            _ = try HTTPServer(configuration: .init(port: bridge.server.port)) { _ in HTTPResponse(status: 200) }
        }
    }

    @Test func connectionRefusedIsATransportError() async throws {
        let port: Int
        do {
            let bridge = try TestBridge()
            port = bridge.server.port
            bridge.server.stop()
        }
        let client = BridgeClient(
            configuration: .init(baseURL: URL(string: "http://127.0.0.1:\(port)/")!, webCallingToken: "t"),
            transport: URLSessionTransport(), environment: VirtualSleeps().environment)
        await #expect(throws: SignalingError.transport("connection refused")) { try await client.provision() }
    }
}
