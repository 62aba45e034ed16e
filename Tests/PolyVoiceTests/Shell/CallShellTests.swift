// The call shell over real sockets against the reference bridge, with media doubles on both sides.
import Foundation
import PolyVoiceBridge
import Synchronization
import Testing

@testable import PolyVoice

@Suite("Call shell against the reference bridge (media doubles)", .serialized)
struct CallShellTests {
    @Test func happyPathConnectsPullsOpensEventsAndTearsDownInOrder() async throws {
        let harness = try ShellHarness()
        defer { harness.stop() }
        let call = try harness.call()
        #expect(call.state == .idle)
        try await call.start()
        #expect(harness.log.all.contains("applyAnswer fake-answer"))
        #expect(await Wait.state(of: call) { $0 == .connected } == .connected)
        // The pull runs after media connected: the bridge's offer is answered through renegotiate.
        #expect(await Wait.until { harness.log.all.contains("bridge applyPullAnswer fake-pull-answer") })
        #expect(harness.bridge.activeCalls == 1)
        #expect(await call.setupTime != nil)

        await call.end()
        #expect(call.state == .ended)
        #expect(harness.log.count("close") == 1)
        // DELETE reached the bridge before end() returned.
        #expect(harness.bridge.activeCalls == 0)
        // The states stream has ended with `.ended` for late subscribers.
        var seen: [CallState] = []
        for await state in call.states { seen.append(state) }
        #expect(seen == [.ended])
    }

    @Test func wrongTokenFailsWithUnauthorized() async throws {
        let harness = try ShellHarness()
        defer { harness.stop() }
        let call = try harness.call(token: "not-the-right-token-00")
        await #expect(throws: PolyError.auth(.unauthorized)) { try await call.start() }
        #expect(call.state == .failed(.auth(.unauthorized)))
        #expect(harness.log.all.isEmpty)  // no media was created
    }

    @Test func unreachableBridgeFailsWithTransport() async throws {
        let harness = try ShellHarness()
        let port = harness.port
        harness.stop()
        let config = Configuration(apiKey: "k-123456789", environment: .local(port: port), webrtcToken: "t-123456789")
        let call = try PolyCall(configuration: config, options: ShellHarness.nullAudio)
        do {
            try await call.start()
            Issue.record("start() succeeded against a stopped bridge")
        } catch let error as PolyError {
            guard case .transport = error else {
                Issue.record("expected a transport error, got \(error)")
                return
            }
        }
        #expect(call.state.isTerminal)
    }

    @Test func endWhileConnectingReleasesEverything() async throws {
        let harness = try ShellHarness()
        defer { harness.stop() }
        let call = try harness.call(connects: false)
        try await call.start()
        #expect(call.state == .connecting)
        #expect(harness.bridge.activeCalls == 1)
        await call.end()
        #expect(call.state == .ended)
        #expect(harness.log.count("close") == 1)
        #expect(harness.bridge.activeCalls == 0)
        await call.end()  // idempotent
        #expect(call.state == .ended)
    }

    @Test func endBeforeStartAndStartAfterEndDoNothing() async throws {
        let harness = try ShellHarness()
        defer { harness.stop() }
        let call = try harness.call()
        await call.end()
        #expect(call.state == .ended)
        try await call.start()
        #expect(call.state == .ended)
        #expect(harness.bridge.activeCalls == 0)
        #expect(harness.log.all.isEmpty)
    }

    @Test func secondStartWhileActiveDoesNothing() async throws {
        let harness = try ShellHarness()
        defer { harness.stop() }
        let call = try harness.call()
        async let first: Void = call.start()
        async let second: Void = call.start()
        _ = try await (first, second)
        try await call.start()
        #expect(await Wait.state(of: call) { $0 == .connected } == .connected)
        #expect(harness.log.count("createOffer") == 1)
        #expect(harness.log.count("bridge applyOffer fake-offer") == 1)
        await call.end()
    }

    @Test func bargeInFlushesAndPausesPlayoutUntilUnmute() async throws {
        let harness = try ShellHarness()
        defer { harness.stop() }
        let call = try harness.call()
        try await call.start()
        #expect(await Wait.state(of: call) { $0 == .connected } == .connected)
        let session = try #require(harness.sessions.last)
        // The events socket opens after the pull; emit until the client has acted on one.
        let flushed = await Wait.until {
            if harness.log.count("flushPlayout") > 0 { return true }
            session.context.emit(.bargeIn)
            try? await Task.sleep(for: .milliseconds(50))
            return harness.log.count("flushPlayout") > 0
        }
        #expect(flushed)
        let paused = await Wait.first(call.audioStates, timeout: .seconds(5)) { $0.isAgentAudioPaused }
        #expect(paused?.isAgentAudioPaused == true)
        session.context.emit(.unmute)
        let resumed = await Wait.first(call.audioStates, timeout: .seconds(5)) { !$0.isAgentAudioPaused }
        #expect(resumed != nil)
        await call.end()
    }

    @Test func reopeningTheEventsSocketRetiresTheOneItReplaces() async throws {
        let lines = Mutex<[String]>([])
        let harness = try ShellHarness(
            bridgeLog: BridgeLog(level: .info, write: { line in lines.withLock { $0.append(line) } }))
        defer { harness.stop() }
        @Sendable func count(_ event: String) -> Int {
            lines.withLock { $0.filter { $0.contains(" \(event) ") }.count }
        }
        let capture = LogCapture()
        let call = try harness.call(logSink: capture.sink, logLevel: .info)
        try await call.start()
        #expect(await Wait.until { count("events.authenticated") == 1 })
        // An address change with the resume extension: ICE restart and a new events socket at once. The
        // replaced socket's reader is stopped before the socket is closed, so its close never reaches the
        // call; a socket left to run would report its close once the bridge closes it as "replaced".
        call.inject(.localAddressChanged)
        #expect(await Wait.until { count("events.authenticated") == 2 })
        try await Task.sleep(for: .seconds(1))
        #expect(!capture.lines.contains { $0.contains("events socket closed") }, "\(capture.lines)")
        #expect(harness.log.count("applyRestartAnswer") == 1)
        await call.end()
    }

    @Test func muteReachesTheMediaAndTheAudioState() async throws {
        let harness = try ShellHarness()
        defer { harness.stop() }
        let call = try harness.call()
        try await call.start()
        call.setMuted(true)
        #expect(call.isMuted)
        #expect(await Wait.until { harness.log.all.contains("setMuted true") })
        call.setMuted(false)
        #expect(!call.isMuted)
        #expect(await Wait.until { harness.log.all.contains("setMuted false") })
        await call.end()
    }

    @Test func noTokenOrKeyInAnyDebugLogLine() async throws {
        let harness = try ShellHarness()
        defer { harness.stop() }
        let capture = LogCapture()
        let call = try harness.call(logSink: capture.sink, logLevel: .debug)
        try await call.start()
        #expect(await Wait.state(of: call) { $0 == .connected } == .connected)
        let provisioned = try #require(await call.provisionedCall)
        #expect(await Wait.until { harness.log.all.contains("bridge applyPullAnswer fake-pull-answer") })
        await call.end()
        let lines = capture.lines
        #expect(lines.count > 5)
        let secrets = [ShellHarness.token, "test-api-key-93be1d", provisioned.token, provisioned.callId]
        for line in lines {
            for secret in secrets { #expect(!line.contains(secret), "secret in: \(line)") }
        }
    }

    @Test func setAudioDeviceWithoutDevicesThrowsClearly() async throws {
        let harness = try ShellHarness()
        defer { harness.stop() }
        let call = try harness.call()
        #expect(throws: PolyError.self) { try call.setAudioDevice("usb", for: .input) }
        await call.end()
    }

    @Test func entryPointNeedsInitializeOrAConfiguration() async throws {
        let harness = try ShellHarness()
        defer { harness.stop() }
        let direct = try PolyVoice.call(config: harness.configuration(), options: ShellHarness.nullAudio)
        #expect(direct.state == .idle)
        try PolyVoice.initialize(harness.configuration())
        let global = try PolyVoice.call(options: ShellHarness.nullAudio)
        #expect(global.state == .idle)
        #expect(throws: PolyError.self) {
            try PolyVoice.initialize(PolyVoice.Configuration(apiKey: "", environment: .local(port: 1)))
        }
    }
}
