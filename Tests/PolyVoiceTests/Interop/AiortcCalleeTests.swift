// A whole PolyCall (REST shell, call-state machine, real media) against a voice bridge that is not ours:
// Tests/Interop/aiortc_bridge.py speaks PROTOCOL.md with aiortc as the callee, echoing the caller's audio on the
// pulled line. Every socket is on 127.0.0.1.
import Foundation
import InteropSupport
import PolyAudio
import PolyVoiceTesting
import Testing

@testable import PolyVoice

@Suite("A full PolyCall with aiortc as the callee", .serialized, .timeLimit(.minutes(2)))
struct AiortcCalleeTests {
    static let token = "aiortc-callee-web-token-5d1e"

    @Test("PolyCall with WAV input reaches connected, hears its speech echoed by aiortc, and ends cleanly")
    func echoThroughAiortc() async throws {
        let speech = try SpeechFixtures().speech(.male)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "polyvoice-aiortc-callee-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let received = directory.appendingPathComponent("received.wav")
        let bridge = try AiortcBridge(token: Self.token)
        defer { bridge.stop() }

        let call = try PolyVoice.call(
            config: Configuration(
                apiKey: "aiortc-callee-api-key", environment: .local(port: bridge.port), webrtcToken: Self.token),
            options: VoiceOptions(input: .file(speech, loop: false), output: .file(received)))
        try await call.start()
        #expect(await Wait.state(of: call, timeout: .seconds(15)) { $0 == .connected } == .connected)
        // The pull happened (aiortc's re-offer adding the agent's line was answered) and aiortc hears us.
        #expect(await Wait.until(timeout: .seconds(10)) { (try? await bridge.calls().pulled) == 1 })
        #expect(await Wait.until(timeout: .seconds(25)) { call.isInputFinished })
        try await Task.sleep(for: .seconds(1.5))  // the echo's tail
        let during = try await bridge.calls()
        let stats = await call.stats
        #expect(call.state == .connected)
        await call.end()
        #expect(call.state == .ended)
        // end() returned after DELETE: the bridge has closed aiortc's connection and forgotten the call.
        let after = try await bridge.calls()
        #expect(during.active == 1 && during.connected == 1)
        #expect(during.receivedSamples > 48_000)
        #expect(after.active == 0 && after.deleted == 1 && after.connected == 0)

        #expect(stats.outboundRtp.packetsSent > 150)
        #expect(stats.inboundRtp.packetsReceived > 100)
        let input = try WAVFile.readPipelineSamples(from: speech)
        let output = try WAVFile.readPipelineSamples(from: received)
        let comparison = AudioComparison(
            reference: input.map { Float($0) / 32768 }, degraded: output.map { Float($0) / 32768 }, sampleRate: 48_000,
            maxDelay: .seconds(2))
        let envelope = Envelope.bestMatch(reference: input, degraded: output)
        print(
            String(
                format: "aiortc callee echo: correlation %.2f, SNR %.1f dB, delay %.0f ms; envelope correlation %.2f",
                comparison.correlation, comparison.snrDecibels, comparison.delayMilliseconds, envelope.correlation),
            "; packets in \(stats.inboundRtp.packetsReceived), out \(stats.outboundRtp.packetsSent)")
        // Two Opus encodes and decodes, aiortc's jitter buffer and ours, and a Python echo that falls behind
        // when the 2 cores are busy: a waveform match, not a bit-exact one (measured 0.47–0.49; 0.28–0.39 with
        // a load average of 17). The control: another voice's speech against the input, aligned the same way.
        let other = try WAVFile.readPipelineSamples(from: try SpeechFixtures().speech(.female))
        let control = AudioComparison(
            reference: input.map { Float($0) / 32768 }, degraded: other.map { Float($0) / 32768 }, sampleRate: 48_000,
            maxDelay: .seconds(2))
        print(String(format: "aiortc callee control (another voice): correlation %.2f", control.correlation))
        #expect(comparison.correlation > 0.2 && comparison.correlation > 2 * abs(control.correlation))
        #expect(comparison.delayMilliseconds > 20 && comparison.delayMilliseconds < 1_500)
        #expect(envelope.correlation > 0.3)  // measured 0.85–0.94, and 0.36–0.40 with a load average of 17
    }

    @Test("a wrong web calling token is refused by the aiortc bridge: failed(.auth(.unauthorized))")
    func wrongToken() async throws {
        let bridge = try AiortcBridge(token: Self.token)
        defer { bridge.stop() }
        let call = try PolyVoice.call(
            config: Configuration(
                apiKey: "aiortc-callee-api-key", environment: .local(port: bridge.port),
                webrtcToken: "not-the-token-0000"),
            options: VoiceOptions(input: .null, output: .null))
        _ = try? await call.start()
        #expect(await Wait.state(of: call) { $0.isTerminal } == .failed(.auth(.unauthorized)))
        #expect(try await bridge.calls().active == 0)
    }
}
