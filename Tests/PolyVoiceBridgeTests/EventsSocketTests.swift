import Foundation
import PolySignaling
import PolyVoiceTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@testable import PolySignaling
@testable import PolyVoiceBridge

@Suite struct BridgeEventsSocketTests {
    func open(_ harness: TestHarness, _ call: ProvisionResponse, token: String? = nil, firstFrame: String? = nil)
        throws -> (EventsSocket, EventsSocketRecorder)
    {
        let url = URL(string: "ws://127.0.0.1:\(harness.port)\(call.creds.extra!.eventsUrl!)")!
        let configuration = EventsSocket.Configuration(url: url, token: token ?? call.creds.token!)
        let socket =
            try firstFrame.map { try EventsSocket(configuration: configuration, firstFrame: $0) }
            ?? EventsSocket(configuration: configuration)
        return (socket, EventsSocketRecorder(socket))
    }

    @Test func authThenAgentEventsAreDelivered() async throws {
        let harness = try TestHarness()
        let call = try await harness.provisionRaw()
        let (socket, updates) = try open(harness, call)
        #expect(await eventually { harness.logLines.withLock { $0.contains { $0.contains("events.authenticated") } } })
        harness.bridge.send(.bargeIn, toCall: call.callId)
        harness.bridge.send(.unmute, toCall: call.callId)
        harness.bridge.send(.repull, toCall: call.callId)
        #expect(await eventually { updates.events.count == 3 })
        #expect(updates.events == [.bargeIn("barge-in"), .unmute, .repull])
        // The media plug-in's emit reaches the socket too.
        _ = try await harness.request(
            "POST", call.creds.connectUrl, headers: ["X-Call-Token": call.creds.token!],
            body: #"{"sdp":"v=0\r\n","mid":"0"}"#)
        harness.media(call.callId)?.context.emit(.bargeIn)
        #expect(await eventually { updates.events.count == 4 })
        socket.close()
        #expect(await eventually { updates.close != nil })
        harness.bridge.stop()
    }

    @Test func anythingButAuthFirstCloses1008() async throws {
        let harness = try TestHarness()
        let call = try await harness.provisionRaw()
        // Keep the sockets alive (their deinit closes them).
        let (s1, hello) = try open(harness, call, firstFrame: #"{"type":"hello"}"#)
        let (s2, wrongToken) = try open(harness, call, token: String(call.creds.token!.reversed()))
        let (s3, garbage) = try open(harness, call, firstFrame: "not json")
        for updates in [hello, wrongToken, garbage] {
            #expect(await eventually { updates.close != nil })
            #expect(updates.close?.code == 1008)
        }
        withExtendedLifetime([s1, s2, s3]) {}
        harness.bridge.stop()
    }

    @Test func silentSocketIsClosedAfterTheAuthTimeout() async throws {
        let harness = try TestHarness(eventsAuthTimeout: .milliseconds(300))
        let call = try await harness.provisionRaw()
        // A WebSocket that completes the handshake and never sends a frame.
        let socket = try RawWebSocket(port: harness.port, path: call.creds.extra!.eventsUrl!)
        let started = ContinuousClock.now
        let code = socket.readCloseCode()
        #expect(code == 1008)
        #expect(ContinuousClock.now - started >= .milliseconds(250))
        #expect(harness.logLines.withLock { $0.contains { $0.contains("events.auth_timeout") } })
        harness.bridge.stop()
    }

    @Test func unknownCallIsRefused() async throws {
        let harness = try TestHarness()
        var call = try await harness.provisionRaw()
        call.creds.extra?.eventsUrl = "/api/v1/call/call-0000000000000000/events"
        let (socket, updates) = try open(harness, call)
        #expect(await eventually { updates.close != nil })
        #expect(updates.close?.code == 1008)
        withExtendedLifetime(socket) {}
        harness.bridge.stop()
    }

    @Test func deleteEndsTheCallAndClosesItsSocket() async throws {
        let harness = try TestHarness()
        let call = try await harness.provisionRaw()
        let (socket, updates) = try open(harness, call)
        #expect(await eventually { harness.logLines.withLock { $0.contains { $0.contains("events.authenticated") } } })
        let reply = try await harness.request(
            "DELETE", "/api/v1/call/\(call.callId)", headers: ["X-Call-Token": call.creds.token!])
        #expect(reply.status == 200)
        #expect(await eventually { updates.close != nil })
        #expect(updates.close?.code == 1000)
        #expect(harness.bridge.activeCalls == 0)
        harness.bridge.stop()
        withExtendedLifetime(socket) {}
    }

    @Test func droppedSocketCanResumeWithinGraceThenTheCallIsReaped() async throws {
        let harness = try TestHarness(
            timeouts: .init(setupTimeout: .seconds(30), resumeGrace: .milliseconds(600), mediaTimeout: .seconds(30)))
        let call = try await harness.provisionRaw()
        #expect(call.creds.extra?.resumeGraceSeconds == 0.6)
        let (first, firstUpdates) = try open(harness, call)
        #expect(await eventually { harness.logLines.withLock { $0.contains { $0.contains("events.authenticated") } } })
        first.close()
        #expect(await eventually { firstUpdates.close != nil })
        // Resume within the grace: a new socket authenticates and the call lives on.
        let (second, secondUpdates) = try open(harness, call)
        try await Task.sleep(for: .milliseconds(900))
        #expect(harness.bridge.activeCalls == 1)
        harness.bridge.send(.unmute, toCall: call.callId)
        #expect(await eventually { secondUpdates.events == [.unmute] })
        second.close()
        #expect(await eventually { harness.bridge.activeCalls == 0 })
        #expect(harness.bridge.metricsText.contains("polyvoice_bridge_calls_total{outcome=\"events_gone\"} 1"))
        harness.bridge.stop()
    }

    @Test func stopEndsCallsAndClosesSockets() async throws {
        let harness = try TestHarness()
        let call = try await harness.provisionRaw()
        let (socket, updates) = try open(harness, call)
        #expect(await eventually { harness.logLines.withLock { $0.contains { $0.contains("events.authenticated") } } })
        harness.bridge.stop()
        #expect(await eventually { updates.close != nil })
        #expect(harness.bridge.activeCalls == 0)
        withExtendedLifetime(socket) {}
    }
}
