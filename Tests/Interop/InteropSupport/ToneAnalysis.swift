// Measures a received tone: its frequency (Goertzel scan over a Hann window) and level.
import Foundation

/// Frequency and level of a (mostly) single-tone signal, for checking audio that crossed a codec.
public enum ToneAnalysis {
    /// The strongest frequency in `range` of `samples`: a 2 Hz scan over the first 0.25 s, then a 0.05 Hz
    /// scan within ±4 Hz of that peak over all of `samples` (1 s gives a main lobe of ±2 Hz).
    public static func dominantFrequency(
        _ samples: ArraySlice<Int16>, sampleRate: Double = 48_000, range: ClosedRange<Double> = 100...4_000
    ) -> Double {
        let signal = samples.map(Double.init)
        guard signal.count >= 1_024 else { return 0 }
        let coarse = Array(signal.prefix(Int(sampleRate / 4)))
        let coarseWindowed = hann(coarse)
        let coarsePeak = peak(
            in: stride(from: range.lowerBound, through: range.upperBound, by: 2), of: coarseWindowed,
            sampleRate: sampleRate)
        let fine = stride(from: coarsePeak - 4, through: coarsePeak + 4, by: 0.05)
        return peak(in: fine, of: hann(signal), sampleRate: sampleRate)
    }

    /// Root mean square of `samples` (full scale 32767).
    public static func rms(_ samples: ArraySlice<Int16>) -> Double {
        guard !samples.isEmpty else { return 0 }
        let energy = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
        return (energy / Double(samples.count)).squareRoot()
    }

    /// `length` samples starting `skip` samples after the first one above `threshold` (the tone's onset), or
    /// nil when the signal never rises or is too short.
    public static func segment(
        of samples: [Int16], skip: Int, length: Int, threshold: Int16 = 300
    ) -> ArraySlice<Int16>? {
        guard let onset = samples.firstIndex(where: { abs(Int($0)) > Int(threshold) }) else { return nil }
        let start = onset + skip
        guard start + length <= samples.count else { return nil }
        return samples[start..<(start + length)]
    }

    private static func hann(_ signal: [Double]) -> [Double] {
        let count = Double(signal.count)
        return signal.enumerated().map { index, value in
            value * 0.5 * (1 - cos(2 * Double.pi * Double(index) / (count - 1)))
        }
    }

    private static func peak(in frequencies: some Sequence<Double>, of signal: [Double], sampleRate: Double) -> Double {
        var best = (frequency: 0.0, power: -1.0)
        for frequency in frequencies {
            let power = goertzelPower(signal, frequency: frequency, sampleRate: sampleRate)
            if power > best.power { best = (frequency, power) }
        }
        return best.frequency
    }

    /// The signal's power at one frequency (Goertzel recurrence).
    private static func goertzelPower(_ signal: [Double], frequency: Double, sampleRate: Double) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequency / sampleRate)
        var previous = 0.0
        var beforePrevious = 0.0
        for value in signal {
            let current = value + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        return previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
    }
}
