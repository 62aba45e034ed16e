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
    /// Bin i's stored value at `2i`, its running sum at `2i + 1`: re-adding reads a bin and writes its sum in the same
    /// cache line (two arrays 4 KiB apart would also make each load wait on the previous store, 4K aliasing).
    private var cells: [Double]
    /// `cells[2i + 1]` = bin 0 + … + bin i (added in that order), valid for `i < validSums`.
    private var validSums = 0
    private let binCount: Int
    private var scale = 1.0
    /// Total true mass (1 − the product of the forget factors applied since the start).
    private(set) var weight = 0.0
    /// Below this `scale` the bins are renormalised (their stored values stay far from overflow).
    private static let rescaleBelow = 1e-100

    init(binCount: Int) {
        self.binCount = binCount
        cells = [Double](repeating: 0, count: 2 * binCount)
    }

    /// Forgets by `forget` (multiplies all mass by it), then adds mass `1 − forget` to `bin`.
    mutating func add(_ bin: Int, forget: Double) {
        scale *= forget
        if scale < Self.rescaleBelow { renormalise() }
        cells[2 * bin] += (1 - forget) / scale
        validSums = min(validSums, bin)
        weight = weight * forget + (1 - forget)
    }

    /// The first bin at which the cumulative mass reaches fraction `q` of the total; -1 with no mass, the last bin
    /// when rounding leaves the total short.
    mutating func quantileBin(_ q: Double) -> Int {
        guard weight > 0 else { return -1 }
        let threshold = q * weight / scale
        let (valid, binCount) = (validSums, binCount)
        let (bin, nowValid) = cells.withUnsafeMutableBufferPointer { cells -> (Int, Int) in
            if valid > 0, cells[2 * valid - 1] >= threshold {
                // The sums never decrease (the bins are not negative): the first one reaching the threshold.
                var (low, high) = (0, valid - 1)
                while low < high {
                    let middle = (low + high) / 2
                    if cells[2 * middle + 1] >= threshold { high = middle } else { low = middle + 1 }
                }
                return (low, valid)
            }
            var sum = valid > 0 ? cells[2 * valid - 1] : 0.0
            for i in valid..<binCount {
                sum += cells[2 * i]
                cells[2 * i + 1] = sum
                if sum >= threshold { return (i, i + 1) }
            }
            return (binCount - 1, binCount)
        }
        validSums = nowValid
        return bin
    }

    /// Moves all mass by `bins` (up when positive, down when negative); mass moved past either end stays in that
    /// end's bin, so the total is kept.
    mutating func shift(by bins: Int) {
        guard bins != 0 else { return }
        let count = binCount
        cells.withUnsafeMutableBufferPointer { cells in
            if bins > 0 {
                var pastTheEnd = 0.0
                for i in max(0, count - bins)..<count { pastTheEnd += cells[2 * i] }
                // From the top down: each bin reads one below it that is not yet overwritten.
                for i in stride(from: count - 1, through: 0, by: -1) {
                    cells[2 * i] = i >= bins ? cells[2 * (i - bins)] : 0
                }
                cells[2 * (count - 1)] += pastTheEnd
            } else {
                let drop = -bins
                var belowZero = 0.0
                for i in 0..<min(count, drop) { belowZero += cells[2 * i] }
                for i in 0..<count { cells[2 * i] = i + drop < count ? cells[2 * (i + drop)] : 0 }
                cells[0] += belowZero
            }
        }
        validSums = 0
    }

    private mutating func renormalise() {
        let factor = scale
        cells.withUnsafeMutableBufferPointer { cells in
            for i in stride(from: 0, to: cells.count, by: 2) { cells[i] *= factor }
        }
        scale = 1
        validSums = 0
    }
}
