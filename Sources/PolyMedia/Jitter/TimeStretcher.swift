// Pitch-preserving time-scale modification: remove or insert whole pitch periods with a cross-fade.
//
// Removing (accelerate) or repeating (preemptive expand) exactly one pitch period shortens or lengthens
// voiced speech without changing its pitch; the overlap-add over one period hides the seam. Only voiced
// (strongly periodic) or quiet audio is stretched: noisy segments would audibly repeat.

/// Finds pitch periods and stretches blocks of 48 kHz samples; stateless.
enum TimeStretcher {
    /// Shortest and longest period searched: 400 Hz down to 100 Hz at 48 kHz.
    static let minimumLag = 120
    static let maximumLag = 480
    /// Normalised correlation above which a block counts as voiced.
    static let voicedCorrelation = 0.8
    /// RMS below which a block counts as quiet enough to stretch anyway.
    static let quietRMS = 300.0

    /// The period with the highest normalised correlation between `x[i]` and `x[i + lag]` over one period.
    static func bestLag(_ x: UnsafeBufferPointer<Int16>) -> (lag: Int, correlation: Double)? {
        let maxLag = min(maximumLag, x.count / 2)
        guard maxLag >= minimumLag else { return nil }
        var best = (lag: maxLag, correlation: -1.0)
        for lag in minimumLag...maxLag {
            var cross = 0.0
            var energyA = 0.0
            var energyB = 0.0
            for i in 0..<lag {
                let a = Double(x[i])
                let b = Double(x[i + lag])
                cross += a * b
                energyA += a * a
                energyB += b * b
            }
            let denominator = (energyA * energyB).squareRoot()
            let correlation = denominator > 0 ? cross / denominator : 0
            if correlation > best.correlation { best = (lag, correlation) }
        }
        return best
    }

    /// The period to stretch `x` by, or nil when `x` is neither voiced nor quiet.
    static func stretchLag(_ x: UnsafeBufferPointer<Int16>) -> Int? {
        guard let best = bestLag(x) else { return nil }
        if best.correlation >= voicedCorrelation { return best.lag }
        return isQuiet(x) ? best.lag : nil
    }

    /// Whether `x` is quiet (a pause in speech), where time-scaling is inaudible.
    static func isQuiet(_ x: UnsafeBufferPointer<Int16>) -> Bool {
        var energy = 0.0
        for sample in x { energy += Double(sample) * Double(sample) }
        return (energy / Double(max(x.count, 1))).squareRoot() < quietRMS
    }

    /// Writes `x` shortened by one period `lag` (the first two periods overlap-added into one) to `output`.
    /// Returns the output length, `x.count - lag`.
    static func accelerate(_ x: UnsafeBufferPointer<Int16>, lag: Int, into output: UnsafeMutableBufferPointer<Int16>)
        -> Int
    {
        for i in 0..<lag {
            let w = Double(i) / Double(lag)
            output[i] = clamp(Double(x[i]) * (1 - w) + Double(x[i + lag]) * w)
        }
        for i in (2 * lag)..<x.count { output[i - lag] = x[i] }
        return x.count - lag
    }

    /// Writes `x` lengthened by one period `lag` (the first period repeated, the repeat overlap-added) to `output`.
    /// Returns the output length, `x.count + lag`.
    static func preemptiveExpand(
        _ x: UnsafeBufferPointer<Int16>, lag: Int, into output: UnsafeMutableBufferPointer<Int16>
    ) -> Int {
        for i in 0..<lag { output[i] = x[i] }
        for i in 0..<lag {
            let w = Double(i) / Double(lag)
            output[lag + i] = clamp(Double(x[lag + i]) * (1 - w) + Double(x[i]) * w)
        }
        for i in lag..<x.count { output[lag + i] = x[i] }
        return x.count + lag
    }

    /// Cross-fades the start of `block` from a periodic continuation of `history` (the audio played just
    /// before), so audio decoded after concealment joins without a click.
    static func merge(history: UnsafeBufferPointer<Int16>, into block: UnsafeMutableBufferPointer<Int16>, fade: Int) {
        let n = min(fade, block.count)
        guard n > 0, history.count >= 2 * minimumLag else { return }
        let lag = bestLag(history)?.lag ?? minimumLag
        let start = history.count - lag
        for i in 0..<n {
            let w = Double(i + 1) / Double(n + 1)
            let continuation = Double(history[start + i % lag])
            block[i] = clamp(continuation * (1 - w) + Double(block[i]) * w)
        }
    }

    @inline(__always)
    static func clamp(_ value: Double) -> Int16 { Int16(max(-32768, min(32767, value.rounded()))) }
}
