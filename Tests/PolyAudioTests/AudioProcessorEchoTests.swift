// Echo cancellation on speech (espeak-ng): the far end's echo fades, the near end's voice stays.
import PolyAudio
import Testing

@Suite struct AudioProcessorEchoTests {
    static let farText =
        "Hello, this is the agent speaking. Your appointment is on Tuesday at four in the afternoon. "
        + "Please bring your insurance card and arrive ten minutes early. Is there anything else I can help with?"
    static let nearText = "Yes, could you move it to Wednesday morning instead? Thank you very much."
    static let rate = AudioProcessor.sampleRate

    /// Far-end speech echoed into the microphone (6 dB down, with a reflection), then the near end
    /// talking alone: the echo must drop by at least 10 dB once the canceller has converged, and
    /// the near end's voice must pass with little loss. Cases: the delay reported correctly, and
    /// a longer delay reported as zero (the canceller estimates it).
    @Test(arguments: [(actualMilliseconds: 40, reportedMilliseconds: 40), (120, 0)])
    func cancelsEchoAndKeepsNearEndSpeech(actualMilliseconds: Int, reportedMilliseconds: Int) throws {
        let farSpeech = try espeakSpeech(Self.farText)
        let nearSpeech = try espeakSpeech(Self.nearText)
        let delay = actualMilliseconds * Self.rate / 1000
        // Phase 1: far end only (echo); phase 2: near end only, far end silent.
        let far = farSpeech + [Int16](repeating: 0, count: nearSpeech.count)
        let echo = AudioProcessorSignals.echo(of: far, delay: delay, gain: 0.5)
        let floor = AudioProcessorSignals.noise(count: far.count, rms: 3, seed: 11)
        let near = AudioProcessorSignals.mix(
            AudioProcessorSignals.mix(echo, floor), [Int16](repeating: 0, count: farSpeech.count) + nearSpeech)

        let processor = try AudioProcessor(
            options: AudioProcessingOptions(echoCancellation: true, noiseSuppression: false, gainControl: false))
        let output = try AudioProcessorSignals.run(
            processor, far: far, near: near, echoDelay: .milliseconds(reportedMilliseconds))

        // The last 3 s of phase 1 (after convergence).
        let echoWindow = (farSpeech.count - 3 * Self.rate)..<farSpeech.count
        let echoReduction = AudioProcessorSignals.reductionDB(near[echoWindow], output[echoWindow])
        // Phase 2, skipping its first 200 ms (the echo tail of phase 1).
        let nearEnd = min(far.count, output.count)
        let nearWindow = (farSpeech.count + Self.rate / 5)..<nearEnd
        let nearLoss = AudioProcessorSignals.reductionDB(near[nearWindow], output[nearWindow])
        let statistics = processor.echoStatistics
        print(
            "AEC (delay \(actualMilliseconds) ms, reported \(reportedMilliseconds) ms): echo reduced \(echoReduction) dB in the last 3 s of far-end speech; near-end speech alone "
                + "attenuated \(nearLoss) dB; library figures \(String(describing: statistics))")
        #expect(farSpeech.count > 8 * Self.rate)
        #expect(echoReduction >= 10, "echo reduced only \(echoReduction) dB")
        #expect(nearLoss <= 3, "near-end speech attenuated \(nearLoss) dB")
        #expect(statistics != nil)
    }

    /// Both talking at once after 6 s of far end alone (the caller barging in on the agent): the
    /// near end's voice is attenuated while the canceller suppresses residual echo, but not muted.
    /// The bound is a regression guard above the measured figure (about 6 dB at moderate suppression).
    @Test func doubleTalkKeepsTheNearEndAudible() throws {
        let farSpeech = try espeakSpeech(Self.farText + " " + Self.farText)
        let nearSpeech = try espeakSpeech(Self.nearText)
        let start = 6 * Self.rate
        let nearTrack = [Int16](repeating: 0, count: start) + nearSpeech
        let count = min(farSpeech.count, nearTrack.count)
        let far = Array(farSpeech[0..<count])
        let echo = AudioProcessorSignals.echo(of: far, delay: 40 * Self.rate / 1000, gain: 0.5)
        let near = AudioProcessorSignals.mix(echo, Array(nearTrack[0..<count]))
        let processor = try AudioProcessor(
            options: AudioProcessingOptions(echoCancellation: true, noiseSuppression: false, gainControl: false))
        let output = try AudioProcessorSignals.run(processor, far: far, near: near, echoDelay: .milliseconds(40))
        let window = start..<output.count
        let nearLoss = AudioProcessorSignals.reductionDB(nearTrack[window], output[window])
        print("AEC double talk: near-end speech energy \(nearLoss) dB lower (output incl. residual echo)")
        #expect(nearLoss <= 8, "near end attenuated \(nearLoss) dB during double talk")
    }

    /// Control: the same echo with a silent far-end reference is left alone, so the reduction
    /// above comes from the playout signal, not from a gate on the microphone.
    @Test func withoutTheReferenceTheEchoStays() throws {
        let farSpeech = try espeakSpeech(Self.farText)
        let near = AudioProcessorSignals.echo(of: farSpeech, delay: 40 * Self.rate / 1000, gain: 0.5)
        let processor = try AudioProcessor(
            options: AudioProcessingOptions(echoCancellation: true, noiseSuppression: false, gainControl: false))
        let output = try AudioProcessorSignals.run(
            processor, far: [Int16](repeating: 0, count: near.count), near: near, echoDelay: .milliseconds(40))
        let window = (output.count - 3 * Self.rate)..<output.count
        let reduction = AudioProcessorSignals.reductionDB(near[window], output[window])
        print("AEC with a silent reference: echo reduced \(reduction) dB")
        #expect(reduction < 3, "reduced \(reduction) dB without a reference")
    }
}
