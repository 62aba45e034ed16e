// AudioProcessor basics: creation for every option set, refusal of bad set-ups, bit-exact pass-through.
import PolyAudio
import Testing

@Suite struct AudioProcessorTests {
    static let optionSets: [AudioProcessingOptions] = [false, true].flatMap { aec in
        [false, true].flatMap { ns in
            [false, true].map { agc in
                AudioProcessingOptions(echoCancellation: aec, noiseSuppression: ns, gainControl: agc)
            }
        }
    }

    @Test(arguments: optionSets, [1, 2])
    func createsProcessesAndDestroys(options: AudioProcessingOptions, channels: Int) throws {
        let processor = try AudioProcessor(options: options, channels: channels)
        #expect(processor.options == options)
        #expect(processor.channels == channels)
        let count = AudioProcessor.frameSamples * channels * 10
        let speechLike = AudioProcessorSignals.noise(count: count, rms: 2000, seed: 7)
        let output = try AudioProcessorSignals.run(processor, far: speechLike, near: speechLike)
        #expect(output.count == count)
        // Echo figures exist only with echo cancellation.
        if !options.echoCancellation { #expect(processor.echoStatistics == nil) }
    }

    @Test func refusesUnsupportedChannelCounts() {
        #expect(throws: AudioProcessorError.self) { try AudioProcessor(channels: 3) }
        #expect(throws: AudioProcessorError.self) { try AudioProcessor(channels: 0) }
    }

    @Test(arguments: [1, 2])
    func everythingOffIsBitExact(channels: Int) throws {
        let processor = try AudioProcessor(options: .none, channels: channels)
        let count = AudioProcessor.frameSamples * channels * 100
        // Full-scale noise with a DC offset: any filtering or gain would change it.
        let near = AudioProcessorSignals.noise(count: count, rms: 9000, seed: 1).map { $0 &+ 300 }
        let far = AudioProcessorSignals.noise(count: count, rms: 9000, seed: 2)
        let output = try AudioProcessorSignals.run(processor, far: far, near: near)
        #expect(output == near)
    }

    @Test func acceptsSingleTenMillisecondBlocks() throws {
        let processor = try AudioProcessor(options: .all)
        var block = AudioProcessorSignals.noise(count: AudioProcessor.blockSamples, rms: 1000, seed: 3)
        try block.withUnsafeBufferPointer { try processor.processPlayout($0) }
        try block.withUnsafeMutableBufferPointer { try processor.processCapture($0, echoDelay: .milliseconds(40)) }
        #expect(block.count == AudioProcessor.blockSamples)
    }
}
