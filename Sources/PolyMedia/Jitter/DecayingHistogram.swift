// A histogram whose mass decays by a forget factor per added sample, with the decay applied lazily.
//
// Multiplying every bin by the forget factor on each sample costs a pass over all bins. Instead the bins hold mass
// divided by `scale` (the product of all forget factors so far): forgetting shrinks `scale`, and a sample adds its
// mass divided by `scale` to one bin. When `scale` gets tiny the bins are brought back to true mass in one pass.

/// Exponentially forgetting histogram (true bin mass = stored value × `scale`).
struct DecayingHistogram {
    private var bins: [Double]
    private var scale = 1.0
    /// Total true mass (1 − the product of the forget factors applied since the start).
    private(set) var weight = 0.0
    /// Below this `scale` the bins are renormalised (their stored values stay far from overflow).
    private static let rescaleBelow = 1e-100

    init(binCount: Int) { bins = [Double](repeating: 0, count: binCount) }

    /// Forgets by `forget` (multiplies all mass by it), then adds mass `1 − forget` to `bin`.
    mutating func add(_ bin: Int, forget: Double) {
        scale *= forget
        if scale < Self.rescaleBelow { renormalise() }
        bins[bin] += (1 - forget) / scale
        weight = weight * forget + (1 - forget)
    }

    /// The first bin at which the cumulative mass reaches fraction `q` of the total; -1 with no mass, the last bin
    /// when rounding leaves the total short.
    func quantileBin(_ q: Double) -> Int {
        guard weight > 0 else { return -1 }
        let threshold = q * weight / scale
        return bins.withUnsafeBufferPointer { bins in
            var sum = 0.0
            for i in bins.indices {
                sum += bins[i]
                if sum >= threshold { return i }
            }
            return bins.count - 1
        }
    }

    private mutating func renormalise() {
        let factor = scale
        bins.withUnsafeMutableBufferPointer { bins in
            for i in bins.indices { bins[i] *= factor }
        }
        scale = 1
    }
}
