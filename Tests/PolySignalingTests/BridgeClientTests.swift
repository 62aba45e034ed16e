import Foundation
import Synchronization
import Testing

@testable import PolySignaling

/// A scripted transport: answers requests from a queue and records them.
final class ScriptedTransport: HTTPTransport {
    enum Reply {
        case status(Int, body: String = "{}", headers: [String: String] = [:])
        case failure(SignalingError)
    }
    private let state: Mutex<(replies: [Reply], requests: [HTTPClientRequest])>

    init(_ replies: [Reply]) { state = Mutex((replies, [])) }

    var requests: [HTTPClientRequest] { state.withLock { $0.requests } }

    func perform(_ request: HTTPClientRequest) async throws(SignalingError) -> HTTPClientResponse {
        let reply = state.withLock { state -> Reply in
            state.requests.append(request)
            return state.replies.isEmpty ? .status(599) : state.replies.removeFirst()
        }
        switch reply {
        case .failure(let error): throw error
        case .status(let status, let body, let headers):
            return HTTPClientResponse(
                status: status, headers: HTTPHeaders(headers.map { (name: $0.key, value: $0.value) }),
                body: Array(body.utf8))
        }
    }
}

/// Virtual time: sleeps return at once and are recorded.
final class VirtualSleeps: Sendable {
    let slept = Mutex<[Duration]>([])
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    var environment: ClientEnvironment {
        ClientEnvironment(
            sleep: { [self] duration in self.slept.withLock { $0.append(duration) } }, now: { [now] in now },
            unitRandom: { 0.5 })
    }
    var durations: [Duration] { slept.withLock { $0 } }
}

@Suite struct BridgeClientTests {
    static let provisionBody = """
        {"callId":"call-1","creds":{"connectUrl":"/api/v1/call/call-1/sdp","token":"per-call-secret-token-123",
         "extra":{"eventsUrl":"/api/v1/call/call-1/events","pullUrl":"/api/v1/call/call-1/sdp/pull",
                  "renegotiateUrl":"/api/v1/call/call-1/sdp/renegotiate"}}}
        """
    let base = URL(string: "https://bridge.test/")!
    let webToken = "web-calling-secret-token-456"

    func client(_ transport: ScriptedTransport, _ sleeps: VirtualSleeps, retry: RetryPolicy = RetryPolicy())
        -> BridgeClient
    {
        BridgeClient(
            configuration: .init(baseURL: base, webCallingToken: webToken, retry: retry), transport: transport,
            environment: sleeps.environment)
    }

    @Test func headersFollowTheProtocol() async throws {
        let transport = ScriptedTransport([
            .status(200, body: Self.provisionBody), .status(200, body: #"{"sdp":"answer"}"#), .status(204, body: ""),
        ])
        let bridge = client(transport, VirtualSleeps())
        let call = try await bridge.provision()
        #expect(call.eventsURL?.absoluteString == "wss://bridge.test/api/v1/call/call-1/events")
        #expect(try await bridge.connect(offerSDP: "offer", mid: "0") == "answer")
        await bridge.hangUp()
        let requests = transport.requests
        try #require(requests.count == 3)
        #expect(requests[0].url.absoluteString == "https://bridge.test/api/v1/call")
        #expect(requests[0].method == "POST")
        #expect(requests[0].headers["Authorization"] == "Bearer \(webToken)")
        #expect(requests[0].headers["Content-Type"] == "application/json")
        #expect(requests[0].headers["Accept"] == "application/json")
        #expect(requests[0].body == Array(#"{"mode":"voice-agent"}"#.utf8))
        #expect(requests[0].timeout == .seconds(15))
        #expect(requests[1].url.absoluteString == "https://bridge.test/api/v1/call/call-1/sdp")
        #expect(requests[1].headers["X-Call-Token"] == "per-call-secret-token-123")
        #expect(requests[1].headers["Authorization"] == nil)
        #expect(requests[1].body == Array(#"{"mid":"0","sdp":"offer"}"#.utf8))
        #expect(requests[2].method == "DELETE")
        #expect(requests[2].url.absoluteString == "https://bridge.test/api/v1/call/call-1")
        #expect(requests[2].headers["X-Call-Token"] == "per-call-secret-token-123")
        for request in requests { #expect(!request.url.absoluteString.contains("secret")) }
    }

    @Test func retryAfterSecondsIsHonouredAndCapped() async throws {
        let transport = ScriptedTransport([
            .status(429, headers: ["Retry-After": "3"]), .status(429, headers: ["Retry-After": "120"]),
            .status(200, body: Self.provisionBody),
        ])
        let sleeps = VirtualSleeps()
        _ = try await client(transport, sleeps).provision()
        #expect(sleeps.durations == [.seconds(3), .seconds(30)])
        #expect(transport.requests.count == 3)
    }

    @Test func retryAfterHTTPDateIsHonoured() async throws {
        let sleeps = VirtualSleeps()
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let date = formatter.string(from: sleeps.now.addingTimeInterval(7))
        let transport = ScriptedTransport([
            .status(429, headers: ["Retry-After": date]), .status(200, body: Self.provisionBody),
        ])
        _ = try await client(transport, sleeps).provision()
        #expect(sleeps.durations == [.seconds(7)])
    }

    @Test func serverErrorsBackOffExponentiallyThenGiveUp() async throws {
        let transport = ScriptedTransport([.status(500), .status(502), .status(503), .status(504)])
        let sleeps = VirtualSleeps()
        let retry = RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(100), maxDelay: .seconds(10), jitter: 0.5)
        await #expect(throws: SignalingError.signalingFailed("Bridge provision failed (504)")) {
            try await client(transport, sleeps, retry: retry).provision()
        }
        // unitRandom 0.5 → factor 1.25 on 100, 200, 400 ms.
        #expect(sleeps.durations == [.milliseconds(125), .milliseconds(250), .milliseconds(500)])
        #expect(transport.requests.count == 4)
    }

    @Test func statusesMapToErrors() async throws {
        let sleeps = VirtualSleeps()
        await #expect(throws: SignalingError.unauthorized) {
            try await client(ScriptedTransport([.status(401)]), sleeps).provision()
        }
        await #expect(throws: SignalingError.forbidden(route: "provision")) {
            try await client(ScriptedTransport([.status(403)]), sleeps).provision(mode: "echo")
        }
        await #expect(throws: SignalingError.signalingFailed("Bridge provision failed (404)")) {
            try await client(ScriptedTransport([.status(404)]), sleeps).provision()
        }
        let perCall = client(ScriptedTransport([.status(200, body: Self.provisionBody), .status(401)]), sleeps)
        try await perCall.provision()
        await #expect(throws: SignalingError.callTokenRejected(route: "connect")) {
            try await perCall.connect(offerSDP: "o")
        }
        await #expect(throws: SignalingError.transport("connection refused")) {
            try await client(ScriptedTransport([.failure(.transport("connection refused"))]), sleeps).provision()
        }
        await #expect(throws: SignalingError.malformedResponse(route: "provision", .invalidJSON)) {
            try await client(ScriptedTransport([.status(200, body: "<html>")]), sleeps).provision()
        }
        await #expect(throws: SignalingError.notProvisioned) {
            try await client(ScriptedTransport([]), sleeps).pull()
        }
        #expect(sleeps.durations.isEmpty)
    }

    @Test func errorDescriptionsNeverContainTokens() async throws {
        let sleeps = VirtualSleeps()
        let bridge = client(ScriptedTransport([.status(200, body: Self.provisionBody), .status(401)]), sleeps)
        let call = try await bridge.provision()
        do {
            _ = try await bridge.pull()
            Issue.record("pull should fail")
        } catch {
            #expect(!"\(error)".contains("per-call-secret"))
        }
        for text in ["\(call)", String(reflecting: call), "\(bridge.configuration)"] {
            #expect(!text.contains("secret-token"))
        }
    }

    @Test func pullsAreSerialisedUntilRenegotiate() async throws {
        let transport = ScriptedTransport([
            .status(200, body: Self.provisionBody), .status(200, body: #"{"sdp":"offer-1"}"#), .status(200),
            .status(200, body: #"{"sdp":"offer-2"}"#), .status(200),
        ])
        let bridge = client(transport, VirtualSleeps())
        try await bridge.provision()
        #expect(try await bridge.pull() == "offer-1")
        let second = Task { try await bridge.pull() }
        try await Task.sleep(for: .milliseconds(50))
        #expect(transport.requests.count == 2)  // the second pull waits for renegotiate
        try await bridge.renegotiate(answerSDP: "answer-1")
        #expect(try await second.value == "offer-2")
        try await bridge.renegotiate(answerSDP: "answer-2")
        let paths = transport.requests.map(\.url.path)
        #expect(
            paths.suffix(4) == [
                "/api/v1/call/call-1/sdp/pull", "/api/v1/call/call-1/sdp/renegotiate", "/api/v1/call/call-1/sdp/pull",
                "/api/v1/call/call-1/sdp/renegotiate",
            ])
        #expect(transport.requests[2].body == Array(#"{"sdp":"answer-1"}"#.utf8))
    }

    @Test func iceRestartNeedsTheExtension() async throws {
        let bridge = client(ScriptedTransport([.status(200, body: Self.provisionBody)]), VirtualSleeps())
        try await bridge.provision()
        await #expect(throws: SignalingError.extensionUnavailable("iceRestartUrl")) {
            try await bridge.iceRestart(offerSDP: "o")
        }
    }
}
