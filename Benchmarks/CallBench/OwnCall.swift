// One PolyCall (public API, file audio) against the bridge's echo agent: setup time, and the received audio
// placed on the input's timeline by AnchorProbe.
import Foundation
import PolyAudio
import PolyVoice

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What one call gave: setup time, and the received audio with input sample 0 at `inputStart` (nil when
/// the anchor could not be fixed; the audio is then not used for timing).
struct ReceivedCall {
    var setupMilliseconds: Double?
    var received: [Int16]
    var inputStart: Int?
    /// Received sample index → seconds on the sender's clock (aiortc: arrival times), nil for our tick-locked calls.
    var timeline: ArrivalTimeline?
}

enum OwnCall {
    /// Places one call with `input` (a BenchSignals file, not looped), waits for it to be sent, plus `tail`.
    static func run(bridgePort: Int, token: String, input: URL, output: URL, tail: Duration = .milliseconds(1500))
        async throws -> ReceivedCall
    {
        let call = try PolyVoice.call(
            config: Configuration(
                apiKey: "callbench-api-key", environment: .local(port: bridgePort), webrtcToken: token),
            options: VoiceOptions(input: .file(input, loop: false), output: .file(output)))
        // A file left by an earlier run would be taken for the WAV header by the probe (it sizes the header
        // from what exists before the call) and every anchor would come out negative.
        try? FileManager.default.removeItem(at: output)
        let probe = AnchorProbe(output: output, call: call)
        probe.start()
        do {
            try await call.start()
            try await waitUntil(seconds: 15, "connected") { call.state == .connected }
            try await waitUntil(seconds: 60, "input sent") { call.isInputFinished }
            try await Task.sleep(for: tail)
        } catch {
            _ = probe.stop()
            await call.end()
            throw error
        }
        let setup = await call.setupTime
        await call.end()
        let anchor = probe.stop()
        let received = try WAVFile.readPipelineSamples(from: output)
        return ReceivedCall(
            setupMilliseconds: setup.map {
                Double($0.components.attoseconds) / 1e15 + Double($0.components.seconds) * 1e3
            },
            received: received, inputStart: anchor.map { $0.frame * BenchSignals.frame }, timeline: nil)
    }

    static func waitUntil(seconds: Double, _ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw BenchError("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
