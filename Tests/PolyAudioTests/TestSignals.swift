// Signals and measures shared by the PolyAudio tests.
import Foundation

enum TestSignals {
    /// A sine tone as Int16 samples.
    static func sine(frequency: Double, sampleRate: Int, seconds: Double, amplitude: Double = 0.5) -> [Int16] {
        let count = Int(Double(sampleRate) * seconds)
        return (0..<count).map { index in
            Int16(amplitude * 32767 * sin(2 * .pi * frequency * Double(index) / Double(sampleRate)))
        }
    }

    /// Signal-to-noise ratio in dB of `test` against `reference` (same length).
    static func snr(_ reference: ArraySlice<Int16>, _ test: ArraySlice<Int16>) -> Double {
        var signal = 0.0
        var noise = 0.0
        for (r, t) in zip(reference, test) {
            signal += Double(r) * Double(r)
            noise += (Double(r) - Double(t)) * (Double(r) - Double(t))
        }
        return 10 * log10(signal / max(noise, 1e-9))
    }

    /// Pearson correlation of two equally long slices.
    static func correlation(_ a: ArraySlice<Int16>, _ b: ArraySlice<Int16>) -> Double {
        let n = Double(min(a.count, b.count))
        let meanA = a.reduce(0.0) { $0 + Double($1) } / n
        let meanB = b.reduce(0.0) { $0 + Double($1) } / n
        var cov = 0.0
        var varA = 0.0
        var varB = 0.0
        for (x, y) in zip(a, b) {
            cov += (Double(x) - meanA) * (Double(y) - meanB)
            varA += (Double(x) - meanA) * (Double(x) - meanA)
            varB += (Double(y) - meanB) * (Double(y) - meanB)
        }
        return cov / max((varA * varB).squareRoot(), 1e-9)
    }

    /// Sum of squared differences (energy of the error).
    static func errorEnergy(_ reference: ArraySlice<Int16>, _ test: ArraySlice<Int16>) -> Double {
        zip(reference, test).reduce(0.0) { $0 + (Double($1.0) - Double($1.1)) * (Double($1.0) - Double($1.1)) }
    }

    /// The frequency of a tone estimated from its upward zero crossings (linear interpolation).
    static func zeroCrossingFrequency(_ samples: ArraySlice<Float>, sampleRate: Int) -> Double {
        var crossings: [Double] = []
        var previous = samples.first ?? 0
        for (offset, sample) in samples.dropFirst().enumerated() {
            if previous < 0, sample >= 0 {
                crossings.append(Double(offset) + Double(-previous / (sample - previous)))
            }
            previous = sample
        }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
        return Double(crossings.count - 1) * Double(sampleRate) / (last - first)
    }

    /// RMS of a Float slice.
    static func rms(_ samples: ArraySlice<Float>) -> Double {
        (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(samples.count, 1))).squareRoot()
    }

    /// The delay of `output` against `reference` (within `around ± within`) that correlates best.
    static func bestLag(
        _ reference: [Int16], _ output: [Int16], around: Int, within: Int, from start: Int, count: Int
    ) -> Int {
        let lags = max(0, around - within)...(around + within)
        return lags.max { a, b in
            correlation(reference[start..<(start + count)], output[(start + a)..<(start + a + count)])
                < correlation(reference[start..<(start + count)], output[(start + b)..<(start + b + count)])
        }!
    }
}
