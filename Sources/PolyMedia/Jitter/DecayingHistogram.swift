// A histogram whose mass decays by a forget factor per added sample, with the decay applied lazily.
//
// Multiplying every bin by the forget factor on each sample costs a pass over all bins. Instead the bins hold mass
// divided by `scale` (the product of all forget factors so far): forgetting shrinks `scale`, and a sample adds its
// mass divided by `scale` to one bin. When `scale` gets tiny the bins are brought back to true mass in one pass.
//
// A quantile is the first bin where the running sum of the bins, added in bin order, reaches a threshold. Those
// running sums are kept: a sample changes only the sums from its bin on, so a quantile query re-adds only from the
// first stale sum up to the answer, or (the answer lying below it) binary-searches the still valid sums. The sums
// are the very same additions in the same order as a scan from bin 0, so the answers are identical to a scan's.

/// Exponentially forgetting histogram (true bin mass = stored value × `scale`).
struct DecayingHistogram {
    private var bins: [Double]
    /// `sums[i]` = bins[0] + … + bins[i] (added in that order), valid for `i < validSums`.
    private var sums: [Double]
    private var validSums = 0
    private var scale = 1.0
    /// Total true mass (1 − the product of the forget factors applied since the start).
    private(set) var weight = 0.0
    /// Below this `scale` the bins are renormalised (their stored values stay far from overflow).
    private static let rescaleBelow = 1e-100

    init(binCount: Int) {
        bins = [Double](repeating: 0, count: binCount)
        sums = [Double](repeating: 0, count: binCount)  // its own storage: shared, the first write would copy
    }

    /// Forgets by `forget` (multiplies all mass by it), then adds mass `1 − forget` to `bin`.
    mutating func add(_ bin: Int, forget: Double) {
        scale *= forget
        if scale < Self.rescaleBelow { renormalise() }
        bins[bin] += (1 - forget) / scale
        validSums = min(validSums, bin)
        weight = weight * forget + (1 - forget)
    }

    /// The first bin at which the cumulative mass reaches fraction `q` of the total; -1 with no mass, the last bin
    /// when rounding leaves the total short.
    mutating func quantileBin(_ q: Double) -> Int {
        guard weight > 0 else { return -1 }
        let threshold = q * weight / scale
        let valid = validSums
        let (bin, nowValid) = bins.withUnsafeBufferPointer { bins in
            sums.withUnsafeMutableBufferPointer { sums -> (Int, Int) in
                if valid > 0, sums[valid - 1] >= threshold {
                    // The sums never decrease (the bins are not negative): the first one reaching the threshold.
                    var (low, high) = (0, valid - 1)
                    while low < high {
                        let middle = (low + high) / 2
                        if sums[middle] >= threshold { high = middle } else { low = middle + 1 }
                    }
                    return (low, valid)
                }
                var sum = valid > 0 ? sums[valid - 1] : 0.0
                for i in valid..<bins.count {
                    sum += bins[i]
                    sums[i] = sum
                    if sum >= threshold { return (i, i + 1) }
                }
                return (bins.count - 1, bins.count)
            }
        }
        validSums = nowValid
        return bin
    }

    private mutating func renormalise() {
        let factor = scale
        bins.withUnsafeMutableBufferPointer { bins in
            for i in bins.indices { bins[i] *= factor }
        }
        scale = 1
        validSums = 0
    }
}
