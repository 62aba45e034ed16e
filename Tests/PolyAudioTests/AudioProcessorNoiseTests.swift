// Noise suppression on stationary noise, and gain control on quiet speech.
import PolyAudio
import Testing

@Suite struct AudioProcessorNoiseTests {
    static let rate = AudioProcessor.sampleRate

    /// Stationary white noise at about -36 dBFS alone: after 2 s to learn it, its energy drops.
    @Test func suppressesStationaryNoise() throws {
        let noise = AudioProcessorSignals.noise(count: 6 * Self.rate, rms: 500, seed: 5)
        let silence = [Int16](repeating: 0, count: noise.count)
        let processor = try AudioProcessor(
            options: AudioProcessingOptions(echoCancellation: false, noiseSuppression: true, gainControl: false))
        let output = try AudioProcessorSignals.run(processor, far: silence, near: noise)
        let window = (2 * Self.rate)..<output.count
        let reduction = AudioProcessorSignals.reductionDB(noise[window], output[window])
        print("NS: stationary noise reduced \(reduction) dB")
        #expect(reduction >= 10, "noise reduced only \(reduction) dB")
    }

    /// Speech in the same noise: noise suppression keeps most of the speech.
    @Test func keepsSpeechInNoise() throws {
        let speech = try espeakSpeech("Noise suppression should keep the words while it removes the hiss.")
        let noise = AudioProcessorSignals.noise(count: speech.count, rms: 500, seed: 6)
        let processor = try AudioProcessor(
            options: AudioProcessingOptions(echoCancellation: false, noiseSuppression: true, gainControl: false))
        let output = try AudioProcessorSignals.run(
            processor, far: [Int16](repeating: 0, count: speech.count), near: AudioProcessorSignals.mix(speech, noise))
        let window = (Self.rate / 2)..<output.count
        let speechLoss = AudioProcessorSignals.reductionDB(speech[window], output[window])
        print("NS: speech plus noise comes out \(speechLoss) dB below the clean speech")
        #expect(abs(speechLoss) <= 3, "speech changed by \(speechLoss) dB")
    }

    /// Quiet speech (30 dB below espeak's level) comes out louder with gain control (at most 9 dB
    /// of digital gain as configured), judged on the second half after the gain has settled.
    @Test func gainControlRaisesQuietSpeech() throws {
        let text =
            "Gain control should make this quiet talker easier to hear. It raises the level slowly, "
            + "so the second half of this sentence should be clearly louder than the input."
        let speech = try espeakSpeech(text).map { $0 / 30 }
        let processor = try AudioProcessor(
            options: AudioProcessingOptions(echoCancellation: false, noiseSuppression: false, gainControl: true))
        let output = try AudioProcessorSignals.run(
            processor, far: [Int16](repeating: 0, count: speech.count), near: speech)
        let window = (output.count / 2)..<output.count
        let gain = -AudioProcessorSignals.reductionDB(speech[window], output[window])
        print("AGC: quiet speech raised \(gain) dB")
        #expect(gain >= 6, "gain only \(gain) dB")
    }
}
