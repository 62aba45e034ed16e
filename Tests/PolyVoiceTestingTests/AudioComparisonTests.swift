import Foundation
import PolyCore
import Testing

@testable import PolyVoiceTesting

/// A speech-like test signal: a few gliding tones under a syllable-rate envelope, plus a little noise.
private func testSignal(seconds: Double, sampleRate: Int, seed: UInt64) -> [Float] {
    var random = SeededRandom(seed: seed)
    let count = Int(seconds * Double(sampleRate))
    return (0..<count).map { i in
        let t = Double(i) / Double(sampleRate)
        let envelope = 0.5 + 0.5 * sin(2 * .pi * 4 * t)
        let voice = sin(2 * .pi * (180 + 40 * sin(2 * .pi * 0.7 * t)) * t) + 0.5 * sin(2 * .pi * 1230 * t)
        return Float(0.3 * envelope * voice + 0.02 * random.normal())
    }
}

/// `signal` delayed by `delay` samples (negative: advanced), with white noise at `snr` dB.
private func degrade(_ signal: [Float], delay: Int, gain: Float = 1, snr: Double?, seed: UInt64) -> [Float] {
    var random = SeededRandom(seed: seed)
    let power = signal.reduce(0.0) { $0 + Double($1 * $1) } / Double(signal.count) * Double(gain * gain)
    let sigma = snr.map { (power / pow(10, $0 / 10)).squareRoot() } ?? 0
    return (0..<signal.count).map { i in
        let source = i - delay
        let clean = source >= 0 && source < signal.count ? gain * signal[source] : 0
        return clean + Float(sigma * random.normal())
    }
}

@Suite struct AudioComparisonTests {
    @Test func fftRoundTripsAndMatchesTheDefinition() {
        var random = SeededRandom(seed: 4)
        let input = (0..<64).map { _ in random.normal() }
        var re = input
        var im = [Double](repeating: 0, count: 64)
        FFT.transform(real: &re, imag: &im, inverse: false)
        // Bin 5 straight from the definition.
        let k = 5.0
        let direct = input.enumerated().reduce((0.0, 0.0)) { sum, item in
            let angle = -2 * Double.pi * k * Double(item.offset) / 64
            return (sum.0 + item.element * cos(angle), sum.1 + item.element * sin(angle))
        }
        #expect(abs(re[5] - direct.0) < 1e-9 && abs(im[5] - direct.1) < 1e-9)
        FFT.transform(real: &re, imag: &im, inverse: true)
        #expect(zip(re, input).allSatisfy { abs($0 - $1) < 1e-9 })
    }

    @Test(arguments: [0, 480, 2400, -960])
    func findsTheDelay(delay: Int) {
        let reference = testSignal(seconds: 1, sampleRate: 48_000, seed: 1)
        let degraded = degrade(reference, delay: delay, snr: 20, seed: 2)
        let result = AudioComparison(reference: reference, degraded: degraded, sampleRate: 48_000)
        #expect(result.delaySamples == delay)
        #expect(abs(result.delayMilliseconds - Double(delay) / 48) < 1e-9)
        #expect(abs(result.snrDecibels - 20) < 1)
        #expect(result.correlation > 0.99)
    }

    @Test func identicalSignalsHaveInfiniteSNRAndGainOne() {
        let reference = testSignal(seconds: 1, sampleRate: 16_000, seed: 3)
        let result = AudioComparison(reference: reference, degraded: reference, sampleRate: 16_000)
        #expect(result.delaySamples == 0)
        #expect(result.snrDecibels == .infinity)
        #expect(abs(result.gain - 1) < 1e-9)
        #expect(result.overlapSamples == reference.count)
    }

    @Test func measuresGainAndNoise() {
        let reference = testSignal(seconds: 1, sampleRate: 16_000, seed: 5)
        let degraded = degrade(reference, delay: 160, gain: 0.5, snr: 6, seed: 6)
        let result = AudioComparison(reference: reference, degraded: degraded, sampleRate: 16_000)
        #expect(result.delaySamples == 160)
        #expect(abs(result.gain - 0.5) < 0.02)
        #expect(abs(result.snrDecibels - 6) < 1)
        #expect(result.correlation < 0.95)
    }

    @Test func unrelatedSignalsDoNotCorrelate() {
        var random = SeededRandom(seed: 8)
        let a = (0..<16_000).map { _ in Float(random.normal()) }
        let b = (0..<16_000).map { _ in Float(random.normal()) }
        let result = AudioComparison(reference: a, degraded: b, sampleRate: 16_000, maxDelay: .milliseconds(100))
        #expect(abs(result.correlation) < 0.1)
        #expect(result.snrDecibels < -10)
    }
}
