// How a signal that went through a call compares with what was sent: delay, correlation, SNR.
import Glibc

/// The alignment of a degraded signal against its reference, found by FFT cross-correlation.
public struct AudioComparison: Sendable, Equatable {
    /// How many samples the degraded signal lags the reference (negative: it leads).
    public let delaySamples: Int
    public let sampleRate: Int
    /// Samples where both signals overlap after alignment.
    public let overlapSamples: Int
    /// Normalized correlation (−1…1) of the aligned overlap.
    public let correlation: Double
    /// Least-squares gain from reference to degraded over the overlap.
    public let gain: Double
    /// Signal-to-noise ratio in dB after alignment and gain matching (infinity if identical).
    public let snrDecibels: Double

    /// The delay in milliseconds.
    public var delayMilliseconds: Double { Double(delaySamples) * 1000 / Double(sampleRate) }

    /// Compares `degraded` with `reference` (same sample rate), searching delays within ±`maxDelay`.
    public init(reference: [Float], degraded: [Float], sampleRate: Int, maxDelay: Duration = .seconds(1)) {
        self.sampleRate = sampleRate
        let maxLag = Int(maxDelay.inSeconds * Double(sampleRate))
        let lag = Self.bestLag(reference: reference, degraded: degraded, maxLag: maxLag)
        delaySamples = lag
        // Overlap: reference[i] against degraded[i + lag].
        let first = max(0, -lag)
        let end = min(reference.count, degraded.count - lag)
        var xy = 0.0
        var xx = 0.0
        var yy = 0.0
        if first < end {
            for i in first..<end {
                let x = Double(reference[i])
                let y = Double(degraded[i + lag])
                xy += x * y
                xx += x * x
                yy += y * y
            }
        }
        overlapSamples = max(end - first, 0)
        correlation = xx > 0 && yy > 0 ? xy / (xx * yy).squareRoot() : 0
        gain = xx > 0 ? xy / xx : 0
        let signal = gain * gain * xx
        let noise = max(yy - (xx > 0 ? xy * xy / xx : 0), 0)
        snrDecibels = noise > signal * 1e-15 ? 10 * log10(signal / noise) : .infinity
    }

    /// The lag in ±`maxLag` maximizing Σ degraded[n + lag] · reference[n].
    private static func bestLag(reference: [Float], degraded: [Float], maxLag: Int) -> Int {
        guard !reference.isEmpty, !degraded.isEmpty else { return 0 }
        let n = FFT.size(atLeast: reference.count + degraded.count)
        var xRe = [Double](repeating: 0, count: n)
        var xIm = [Double](repeating: 0, count: n)
        var yRe = [Double](repeating: 0, count: n)
        var yIm = [Double](repeating: 0, count: n)
        for (i, sample) in reference.enumerated() { xRe[i] = Double(sample) }
        for (i, sample) in degraded.enumerated() { yRe[i] = Double(sample) }
        FFT.transform(real: &xRe, imag: &xIm, inverse: false)
        FFT.transform(real: &yRe, imag: &yIm, inverse: false)
        // Y · conj(X): its inverse is the circular cross-correlation, lag k at index k (mod n).
        for i in 0..<n {
            let re = yRe[i] * xRe[i] + yIm[i] * xIm[i]
            let im = yIm[i] * xRe[i] - yRe[i] * xIm[i]
            yRe[i] = re
            yIm[i] = im
        }
        FFT.transform(real: &yRe, imag: &yIm, inverse: true)
        let positive = min(maxLag, degraded.count - 1)
        let negative = min(maxLag, reference.count - 1)
        var best = 0
        var bestValue = -Double.infinity
        for lag in -negative...positive {
            let value = yRe[(lag + n) % n]
            if value > bestValue {
                bestValue = value
                best = lag
            }
        }
        return best
    }
}
