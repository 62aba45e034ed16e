// The resampler keeps a tone's frequency and level, streams seamlessly, and flushes its tail.
import Foundation
import PolyAudio
import Testing

@Suite struct ResamplerTests {
    static let pairs: [(Int, Int)] = Resampler.commonRates.filter { $0 != 48000 }.flatMap {
        [($0, 48000), (48000, $0)]
    }

    /// A 1 kHz tone (below every Nyquist frequency) at −6 dBFS, resampled in 20 ms-ish blocks.
    @Test(arguments: pairs)
    func toneKeepsFrequencyAndLevel(from input: Int, to output: Int) throws {
        let tone = (0..<input).map { Float(0.5 * sin(2 * Double.pi * 1000 * Double($0) / Double(input))) }
        let resampler = try Resampler(from: input, to: output)
        var result: [Float] = []
        for start in stride(from: 0, to: tone.count, by: input / 50) {
            result += resampler.process(Array(tone[start..<min(start + input / 50, tone.count)]))
        }
        result += resampler.flush(Float.self)
        // Length: one second in, one second plus the filter's delay out.
        #expect(result.count == output + resampler.outputLatency)
        let steady = result[(output / 10)..<(output * 9 / 10)]
        let frequency = TestSignals.zeroCrossingFrequency(steady, sampleRate: output)
        #expect(abs(frequency - 1000) < 1, "frequency \(frequency) Hz")
        let rms = TestSignals.rms(steady)
        #expect(abs(20 * log10(rms / (0.5 / 2.0.squareRoot()))) < 0.5, "rms \(rms)")
    }

    @Test func int16StreamingMatchesOneBlock() throws {
        let tone = TestSignals.sine(frequency: 440, sampleRate: 44100, seconds: 0.5)
        let whole = try Resampler(from: 44100, to: 48000)
        let oneBlock = whole.process(tone) + whole.flush()
        let streamed = try Resampler(from: 44100, to: 48000)
        var pieces: [Int16] = []
        for start in stride(from: 0, to: tone.count, by: 441) {
            pieces += streamed.process(Array(tone[start..<min(start + 441, tone.count)]))
        }
        pieces += streamed.flush()
        #expect(pieces == oneBlock)
        #expect(pieces.count >= 24000)
    }

    @Test func stereoKeepsChannelsApart() throws {
        let left = TestSignals.sine(frequency: 500, sampleRate: 16000, seconds: 0.5)
        let stereo = left.flatMap { [$0, Int16(0)] }
        let resampler = try Resampler(from: 16000, to: 48000, channels: 2)
        let result = resampler.process(stereo) + resampler.flush()
        let right = stride(from: 1, to: result.count, by: 2).map { Int32(result[$0]) }
        let leftOut = stride(from: 0, to: result.count, by: 2).map { abs(Int32(result[$0])) }
        #expect(right.allSatisfy { abs($0) <= 1 })
        #expect(leftOut.max()! > 15000)
    }

    @Test func invalidConfigurationsThrow() {
        #expect(throws: ResamplerError.self) { try Resampler(from: 0, to: 48000) }
        #expect(throws: ResamplerError.self) { try Resampler(from: 48000, to: 48000, channels: 3) }
        #expect(throws: ResamplerError.self) { try Resampler(from: 8000, to: 48000, quality: 11) }
    }
}
