// The frequency of a test tone after it went through a codec and a lossy network.
import Glibc

/// Spectral checks on test tones.
public enum ToneAnalysis {
    /// The strongest frequency in `samples` in Hz: a Hann-windowed FFT peak, refined by parabolic
    /// interpolation between bins (accurate to a small fraction of a bin for a steady tone).
    public static func dominantFrequency(_ samples: ArraySlice<Int16>, sampleRate: Int) -> Double {
        guard samples.count > 2 else { return 0 }
        let n = FFT.size(atLeast: samples.count)
        var real = [Double](repeating: 0, count: n)
        var imag = [Double](repeating: 0, count: n)
        let count = samples.count
        for (offset, sample) in samples.enumerated() {
            let window = 0.5 - 0.5 * cos(2 * Double.pi * Double(offset) / Double(count - 1))
            real[offset] = Double(sample) * window
        }
        FFT.transform(real: &real, imag: &imag, inverse: false)
        let magnitude = (0...(n / 2)).map { (real[$0] * real[$0] + imag[$0] * imag[$0]).squareRoot() }
        var peak = 1
        for bin in 1..<(n / 2) where magnitude[bin] > magnitude[peak] { peak = bin }
        let (a, b, c) = (magnitude[peak - 1], magnitude[peak], magnitude[peak + 1])
        let denominator = a - 2 * b + c
        let shift = denominator == 0 ? 0 : 0.5 * (a - c) / denominator
        return (Double(peak) + shift) * Double(sampleRate) / Double(n)
    }

    /// The power of one `frequency` in `samples` (Goertzel), unnormalised: compare it with another frequency's
    /// power in the same samples.
    public static func power(_ samples: some Sequence<Int16>, at frequency: Double, sampleRate: Int) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequency / Double(sampleRate))
        var (previous, beforePrevious) = (0.0, 0.0)
        for sample in samples {
            (beforePrevious, previous) = (previous, Double(sample) + coefficient * previous - beforePrevious)
        }
        return previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
    }
}
