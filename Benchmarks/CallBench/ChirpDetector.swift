// Finds a chirp in received audio by normalised cross-correlation (matched filter) at 16 kHz.
import Foundation

struct ChirpDetector {
    /// Correlation a match must reach (1 = identical shape). Windows without a chirp score about 0.15 or less;
    /// a chirp that Opus and the jitter buffer's time-stretching reshaped still scores about 0.45.
    var threshold: Float = 0.3
    private let template: [Float]
    private let templateNorm: Float

    init(chirp: [Float] = BenchSignals.chirp) {
        template = Self.decimate(chirp)
        templateNorm = template.reduce(0) { $0 + $1 * $1 }.squareRoot()
    }

    /// 48 → 16 kHz by averaging three samples (the chirp stays below 3.4 kHz).
    static func decimate(_ samples: [Float]) -> [Float] {
        stride(from: 0, to: samples.count - 2, by: 3).map { (samples[$0] + samples[$0 + 1] + samples[$0 + 2]) / 3 }
    }

    /// The 48 kHz index where the chirp starts within `window` of `samples`, and its correlation; nil when no
    /// lag reaches the threshold.
    func find(in samples: [Int16], window: Range<Int>) -> (index: Int, correlation: Float)? {
        let lower = max(0, window.lowerBound)
        let upper = min(samples.count, window.upperBound + template.count * 3)
        guard upper - lower > template.count * 3 else { return nil }
        let signal = Self.decimate(samples[lower..<upper].map { Float($0) / 32768 })
        let length = template.count
        guard signal.count > length else { return nil }
        var best: (lag: Int, correlation: Float) = (0, -1)
        template.withUnsafeBufferPointer { t in
            signal.withUnsafeBufferPointer { x in
                for lag in 0..<(x.count - length) {
                    // Each window's energy summed afresh: a running sum (add the new sample, subtract the old)
                    // keeps the rounding error of a loud chirp it passed, and in the near-silence after it that
                    // error, not the audio, divides the correlation (it reached 1.2 there, above the chirp).
                    var dot: Float = 0
                    var energy: Float = 0
                    for k in 0..<length {
                        dot += t[k] * x[lag + k]
                        energy += x[lag + k] * x[lag + k]
                    }
                    guard energy > 1e-9 else { continue }
                    let correlation = dot / (templateNorm * energy.squareRoot())
                    if correlation > best.correlation { best = (lag, correlation) }
                }
            }
        }
        guard best.correlation >= threshold else { return nil }
        return (lower + best.lag * 3, best.correlation)
    }
}
