// Level meter figures and voice-activity decisions.
import Foundation
import PolyAudio
import PolyCore
import Testing

@Suite struct LevelTests {
    @Test func sineLevelsAreKnownValues() {
        let sine = TestSignals.sine(frequency: 1000, sampleRate: 48000, seconds: 0.1, amplitude: 0.5)
        let level = LevelMeter.measure(sine)
        #expect(abs(level.rmsDBFS - (-6.02 - 3.01)) < 0.05, "\(level)")
        #expect(abs(level.peakDBFS - (-6.02)) < 0.05)
        #expect(abs(level.peak - 0.5) < 0.001)
        #expect(LevelMeter.measure([Int16](repeating: 0, count: 960)) == .silence)
        #expect(LevelMeter.measure([Float](repeating: 1, count: 10)).rmsDBFS == 0)
    }

    @Test func runningLevelCombinesBlocks() {
        var meter = LevelMeter()
        let loud = [Float](repeating: 0.5, count: 100)
        let quiet = [Float](repeating: 0, count: 300)
        loud.withUnsafeBufferPointer { _ = meter.add($0) }
        quiet.withUnsafeBufferPointer { _ = meter.add($0) }
        // mean square 0.25 * 100 / 400 → rms 0.25 → −12.04 dBFS
        #expect(abs(meter.level.rmsDBFS - 20 * log10(0.25)) < 0.01)
        #expect(meter.level.peak == 0.5)
        meter.reset()
        #expect(meter.level == .silence)
    }

    @Test func vadFollowsSpeechWithHangover() {
        var vad = VoiceActivityDetector(configuration: .init(hangoverFrames: 5))
        var random = SeededRandom(seed: 7)
        let noise = { (random: inout SeededRandom) in (0..<960).map { _ in Int16.random(in: -30...30, using: &random) }
        }
        var decisions: [Bool] = []
        for _ in 0..<20 { decisions.append(vad.process(noise(&random))) }
        let tone = TestSignals.sine(frequency: 200, sampleRate: 48000, seconds: 0.02, amplitude: 0.3)
        for _ in 0..<10 { decisions.append(vad.process(tone)) }
        for _ in 0..<20 { decisions.append(vad.process(noise(&random))) }
        #expect(decisions[0..<20].allSatisfy { !$0 }, "noise alone is not speech")
        #expect(decisions[20..<30].allSatisfy { $0 }, "the tone is speech")
        #expect(decisions[30..<35].allSatisfy { $0 }, "hangover keeps 5 frames")
        #expect(decisions[35...].allSatisfy { !$0 }, "then it ends")
        #expect(vad.noiseFloorDBFS < -60)
    }

    @Test func vadHearsSpeechFromTheFirstFrame() {
        var vad = VoiceActivityDetector(configuration: .init(hangoverFrames: 0))
        let tone = TestSignals.sine(frequency: 300, sampleRate: 48000, seconds: 0.02, amplitude: 0.2)
        var decisions: [Bool] = []
        for _ in 0..<50 { decisions.append(vad.process(tone)) }
        #expect(decisions.first == true && decisions.allSatisfy { $0 }, "a talker from the first frame is speech")
        // A background quieter than the threshold is still taken as the floor from the first frame.
        var quiet = VoiceActivityDetector(configuration: .init(hangoverFrames: 0))
        let hiss = TestSignals.sine(frequency: 3000, sampleRate: 48000, seconds: 0.02, amplitude: 0.001)
        let hissIsSpeech = quiet.process(hiss)
        #expect(!hissIsSpeech)
        let hissLevel = hiss.withUnsafeBufferPointer { LevelMeter.measure($0).rmsDBFS }
        #expect(abs(quiet.noiseFloorDBFS - hissLevel) < 0.01)
    }

    @Test func vadAdaptsToSteadyLoudNoise() {
        var vad = VoiceActivityDetector(configuration: .init(hangoverFrames: 0))
        let hum = TestSignals.sine(frequency: 100, sampleRate: 48000, seconds: 0.02, amplitude: 0.05)
        let quiet = [Int16](repeating: 0, count: 960)
        vad.process(quiet)
        // A hum switching on is loud at first; the floor then climbs until it is background.
        var decisions: [Bool] = []
        for _ in 0..<1000 { decisions.append(vad.process(hum)) }
        #expect(decisions.first == true)
        #expect(decisions.suffix(100).allSatisfy { !$0 })
    }
}
