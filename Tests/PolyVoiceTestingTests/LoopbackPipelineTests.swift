// The loopback pipeline in virtual time: a tone through loss keeps its pitch, FEC recoveries are counted.
import Foundation
import PolyCore
import PolyNet
import PolyVoiceTesting
import Testing

@Suite struct LoopbackPipelineTests {
    static func tone(_ frequency: Double, seconds: Double) -> [Int16] {
        (0..<Int(seconds * 48000)).map { Int16(8000 * sin(2 * .pi * frequency * Double($0) / 48000)) }
    }

    @Test func toneThroughFivePercentLossKeepsItsFrequency() throws {
        let input = Self.tone(440, seconds: 4)
        let configuration = LoopbackConfiguration(impairment: LinkImpairment(loss: .uniform(0.05)), seed: 3)
        let result = try LoopbackPipeline.process(input, configuration: configuration)
        let stats = result.statistics
        #expect(stats.packetsSent == 200)
        #expect((3...20).contains(stats.packetsLost), "\(stats.packetsLost) lost")
        #expect(stats.packetsDelivered == stats.packetsSent - stats.packetsLost)
        let frequency = ToneAnalysis.dominantFrequency(result.output[24000..<168000], sampleRate: 48000)
        #expect(abs(frequency - 440) < 4, "\(frequency) Hz")
        #expect(result.output.count >= input.count)
        #expect(stats.outputLevel.rmsDBFS < stats.inputLevel.rmsDBFS + 1)
    }

    @Test func fecRecoveriesAreCountedAndVanishWithoutFEC() throws {
        let input = Self.tone(300, seconds: 6)
        let lossy = LinkImpairment(loss: .uniform(0.1))
        let withFEC = try LoopbackPipeline.process(
            input, configuration: LoopbackConfiguration(impairment: lossy, seed: 9))
        let without = try LoopbackPipeline.process(
            input, configuration: LoopbackConfiguration(inbandFEC: false, impairment: lossy, seed: 9))
        // Same seed, same network decisions.
        #expect(withFEC.statistics.packetsLost == without.statistics.packetsLost)
        #expect(withFEC.statistics.fecRecovered > 0)
        #expect(withFEC.statistics.fecRecovered <= withFEC.statistics.packetsLost)
        #expect(without.statistics.fecRecovered == 0)
        #expect(withFEC.statistics.concealedPercent < without.statistics.concealedPercent)
    }

    @Test func cleanLinkLosesNothingAndDelayFollowsTheLink() throws {
        let input = Self.tone(1000, seconds: 2)
        let clean = try LoopbackPipeline.process(input, configuration: LoopbackConfiguration())
        #expect(clean.statistics.packetsLost == 0)
        #expect(clean.statistics.fecRecovered == 0)
        #expect(clean.statistics.meanNetworkDelayMilliseconds == 0)

        let delayed = try LoopbackPipeline.process(
            input, configuration: LoopbackConfiguration(impairment: LinkImpairment(delay: .milliseconds(80))))
        #expect(abs(delayed.statistics.meanNetworkDelayMilliseconds - 80) < 0.001)
        #expect(delayed.statistics.meanDelayMilliseconds > 80)
        // The played tone is the same, just later: the output is longer by about the extra delay.
        #expect(delayed.output.count > clean.output.count)
        let frequency = ToneAnalysis.dominantFrequency(delayed.output[9600..<86400], sampleRate: 48000)
        #expect(abs(frequency - 1000) < 5, "\(frequency) Hz")
    }

    @Test func jitterIsAbsorbedWithoutLoss() throws {
        let input = Self.tone(440, seconds: 4)
        let impairment = LinkImpairment(delay: .milliseconds(50), jitter: .milliseconds(15))
        let result = try LoopbackPipeline.process(
            input, configuration: LoopbackConfiguration(impairment: impairment, seed: 5))
        #expect(result.statistics.packetsLost == 0)
        #expect(result.statistics.meanBufferDelayMilliseconds > 10)
        #expect(result.statistics.concealedPercent < 10, "\(result.statistics.concealedPercent) %")
    }

    @Test func lossHintFollowsTheLink() {
        #expect(LoopbackConfiguration().lossHintPercent == 1)
        #expect(LoopbackConfiguration(inbandFEC: false).lossHintPercent == 0)
        #expect(LoopbackConfiguration(impairment: LinkImpairment(loss: .uniform(0.123))).lossHintPercent == 13)
        #expect(LoopbackConfiguration(impairment: LinkImpairment(loss: .uniform(0.6))).lossHintPercent == 30)
    }

    @Test func dominantFrequencyOfPureTones() {
        for frequency in [200.0, 440, 1000, 3150] {
            let measured = ToneAnalysis.dominantFrequency(Self.tone(frequency, seconds: 0.5)[...], sampleRate: 48000)
            #expect(abs(measured - frequency) < 1, "\(frequency) → \(measured)")
        }
    }
}
