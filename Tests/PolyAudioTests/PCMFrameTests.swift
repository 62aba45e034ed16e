// PCM sample conversions and frame layout changes.
import PolyAudio
import Testing

@Suite struct PCMFrameTests {
    @Test func int16ToFloatAndBackIsExact() {
        let all = (Int(Int16.min)...Int(Int16.max)).map { Int16($0) }
        let frame = PCMFrame(samples: all, sampleRate: 48000)
        let float = frame.converted(to: Float.self)
        #expect(float.samples.first == -1)
        #expect(float.samples.allSatisfy { (-1...1).contains($0) })
        #expect(float.converted(to: Int16.self) == frame)
    }

    @Test func floatToInt16ClipsAndRounds() {
        let frame = PCMFrame<Float>(samples: [2, -2, 0.5, -0.5, 1.0 / 65536 * 1.2], sampleRate: 8000)
        #expect(frame.converted(to: Int16.self).samples == [32767, -32768, 16384, -16384, 1])
    }

    @Test func stereoMonoConversions() {
        let stereo = PCMFrame<Int16>(samples: [100, 300, -50, -150, 32767, 32767], sampleRate: 16000, layout: .stereo)
        #expect(stereo.samplesPerChannel == 3)
        #expect(stereo.mono().samples == [200, -100, 32767])
        #expect(stereo.mono().layout == .mono)
        let mono = PCMFrame<Float>(samples: [0.25, -0.5], sampleRate: 16000)
        #expect(mono.stereo().samples == [0.25, 0.25, -0.5, -0.5])
        #expect(mono.stereo().mono() == mono)
    }

    @Test func durationFollowsRateAndLayout() {
        let frame = PCMFrame<Int16>.silence(samplesPerChannel: 960, sampleRate: 48000, layout: .stereo)
        #expect(frame.samples.count == 1920)
        #expect(frame.duration == .milliseconds(20))
        #expect(PCMFrame<Int16>.silence(samplesPerChannel: 441, sampleRate: 44100).duration == .milliseconds(10))
    }
}
