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

    /// Decimation of the coarse pitch search (48 kHz → 12 kHz: voice pitch and its first harmonics stay).
    static let decimation = 4
    /// Coarse peaks refined at full rate, and the refinement radius (full-rate samples) around each.
    static let refinedPeaks = 3
    static let refineRadius = 6

    /// The period with the highest normalised correlation between `x[i]` and `x[i + lag]` over one period.
    ///
    /// A coarse search on the 4:1 decimated signal finds the best few correlation peaks, and each is refined at
    /// full rate within ±`refineRadius`, so the cost is about a tenth of an exhaustive search; exact integer sums
    /// (energies updated incrementally from lag to lag) keep the inner loop to one multiply-add. The decimated
    /// signal (under 1 KiB) lives on the stack: no allocation.
    static func bestLag(_ x: UnsafeBufferPointer<Int16>) -> (lag: Int, correlation: Double)? {
        let maxLag = min(maximumLag, x.count / 2)
        guard maxLag >= minimumLag else { return nil }
        let coarseCount = 2 * maxLag / decimation
        var peaks = CoarsePeaks()
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * maximumLag / decimation) { coarse in
            decimate(x, count: coarseCount, into: coarse)
            coarsePeaks(coarse, lags: (minimumLag / decimation)...(maxLag / decimation), into: &peaks)
        }
        var best = (lag: maxLag, correlation: -1.0)
        for k in 0..<peaks.count {
            let centre = peaks.lag(k) * decimation
            let low = max(minimumLag, centre - refineRadius)
            let high = min(maxLag, centre + refineRadius)
            guard low <= high else { continue }
            var energyA = energy(x, 0..<low)
            var energyB = energy(x, low..<(2 * low))
            for lag in low...high {
                if lag > low {
                    let entering = Int64(x[lag - 1])
                    let a = Int64(x[2 * lag - 2])
                    let b = Int64(x[2 * lag - 1])
                    energyA &+= entering &* entering
                    energyB &+= a &* a &+ b &* b &- entering &* entering
                }
                let correlation = normalisedCorrelation(
                    cross: crossCorrelation(x, lag: lag), energyA: energyA, energyB: energyB)
                if correlation > best.correlation || (correlation == best.correlation && lag < best.lag) {
                    best = (lag, correlation)
                }
            }
        }
        return best
    }

    private static func energy(_ x: UnsafeBufferPointer<Int16>, _ range: Range<Int>) -> Int64 {
        var sum: Int64 = 0
        for i in range { sum &+= Int64(Int32(x[i]) &* Int32(x[i])) }
        return sum
    }

    /// The best few local maxima of the normalised correlation of the decimated signal, by correlation.
    struct CoarsePeaks {
        private var lags: (Int, Int, Int) = (0, 0, 0)
        private var scores: (Double, Double, Double) = (-2, -2, -2)
        private(set) var count = 0

        func lag(_ k: Int) -> Int { k == 0 ? lags.0 : k == 1 ? lags.1 : lags.2 }

        mutating func offer(lag: Int, score: Double) {
            if score > scores.0 {
                (lags.2, scores.2) = (lags.1, scores.1)
                (lags.1, scores.1) = (lags.0, scores.0)
                (lags.0, scores.0) = (lag, score)
            } else if score > scores.1 {
                (lags.2, scores.2) = (lags.1, scores.1)
                (lags.1, scores.1) = (lag, score)
            } else if score > scores.2 {
                (lags.2, scores.2) = (lag, score)
            } else {
                return
            }
            count = min(count + 1, refinedPeaks)
        }
    }

    /// Averages each `decimation` samples of `x` (a crude low-pass that is enough to locate the pitch).
    private static func decimate(
        _ x: UnsafeBufferPointer<Int16>, count: Int, into output: UnsafeMutableBufferPointer<Int32>
    ) {
        for i in 0..<count {
            var sum: Int32 = 0
            for j in 0..<decimation { sum &+= Int32(x[i * decimation + j]) }
            output[i] = sum / Int32(decimation)
        }
    }

    /// Offers every local maximum of the decimated signal's normalised correlation over `lags` to `peaks`
    /// (the range's ends count when they are higher than their one neighbour).
    private static func coarsePeaks(
        _ d: UnsafeMutableBufferPointer<Int32>, lags: ClosedRange<Int>, into peaks: inout CoarsePeaks
    ) {
        var previous = -2.0
        var current = coarseCorrelation(d, lag: lags.lowerBound)
        for lag in lags {
            let next = lag < lags.upperBound ? coarseCorrelation(d, lag: lag + 1) : -2.0
            if current >= previous, current >= next { peaks.offer(lag: lag, score: current) }
            (previous, current) = (current, next)
        }
    }

    private static func coarseCorrelation(_ d: UnsafeMutableBufferPointer<Int32>, lag: Int) -> Double {
        var cross: Int64 = 0
        var energyA: Int64 = 0
        var energyB: Int64 = 0
        for i in 0..<lag {
            let a = Int64(d[i])
            let b = Int64(d[i + lag])
            cross &+= a &* b
            energyA &+= a &* a
            energyB &+= b &* b
        }
        return normalisedCorrelation(cross: cross, energyA: energyA, energyB: energyB)
    }

    @inline(__always)
    private static func crossCorrelation(_ x: UnsafeBufferPointer<Int16>, lag: Int) -> Int64 {
        var cross: Int64 = 0
        for i in 0..<lag { cross &+= Int64(Int32(x[i]) &* Int32(x[i + lag])) }
        return cross
    }

    @inline(__always)
    private static func normalisedCorrelation(cross: Int64, energyA: Int64, energyB: Int64) -> Double {
        let denominator = (Double(energyA) * Double(energyB)).squareRoot()
        return denominator > 0 ? Double(cross) / denominator : 0
    }

    /// The period to stretch `x` by, or nil when `x` is neither voiced nor quiet.
    static func stretchLag(_ x: UnsafeBufferPointer<Int16>) -> Int? {
        guard let best = bestLag(x) else { return nil }
        if best.correlation >= voicedCorrelation { return best.lag }
        return isQuiet(x) ? best.lag : nil
    }

    /// Whether `x` is quiet: a pause in speech, or a quiet sound inside a word (`PauseDetector` tells them apart).
    static func isQuiet(_ x: UnsafeBufferPointer<Int16>) -> Bool {
        (Double(energy(x, 0..<x.count)) / Double(max(x.count, 1))).squareRoot() < quietRMS
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
