// The delay estimator's lazily decaying histogram against the direct computation it replaces.
import PolyCore
import Testing

@testable import PolyMedia

@Suite struct DelayEstimatorHistogramTests {
    /// The direct form: every bin multiplied by the forget factor on every sample.
    struct EagerHistogram {
        var bins: [Double]
        var weight = 0.0
        mutating func add(_ bin: Int, forget: Double) {
            for i in bins.indices { bins[i] *= forget }
            bins[bin] += 1 - forget
            weight = weight * forget + (1 - forget)
        }
        func quantileBin(_ q: Double) -> Int {
            var sum = 0.0
            for (i, mass) in bins.enumerated() {
                sum += mass
                if sum >= q * weight { return i }
            }
            return bins.count - 1
        }
    }

    @Test(arguments: [0.98, 0.9993])
    func quantilesMatchTheDirectComputation(forget: Double) {
        var lazy = DecayingHistogram(binCount: 100)
        var eager = EagerHistogram(bins: [Double](repeating: 0, count: 100))
        var random = SeededRandom(seed: 11)
        var mismatches = 0
        var largestDifference = 0
        // 20 000 samples: with forget 0.98 the lazy scale crosses its renormalisation threshold about once per
        // 11 400 samples. Forget ramps up from 0.5 like the estimator's.
        for n in 1...20_000 {
            let f = min(forget, 1 - 1 / Double(n + 1))
            let bin = min(99, Int(abs(random.normal(mean: 10, standardDeviation: 6 + Double(n / 4000)))))
            lazy.add(bin, forget: f)
            eager.add(bin, forget: f)
            for q in [0.5, 0.9, 0.97] where lazy.quantileBin(q) != eager.quantileBin(q) {
                mismatches += 1
                largestDifference = max(largestDifference, abs(lazy.quantileBin(q) - eager.quantileBin(q)))
            }
            #expect(abs(lazy.weight - eager.weight) < 1e-12)
        }
        // Equal but for rounding: while the forget factor ramps up the bins hold exact fractions, so the cumulative
        // mass can equal the quantile exactly and rounding picks the side; such ties land one bin apart.
        #expect(mismatches <= 60)  // of 60 000 quantiles
        #expect(largestDifference <= 1)
    }

    @Test func emptyHistogramHasNoQuantile() {
        #expect(DecayingHistogram(binCount: 10).quantileBin(0.9) == -1)
    }
}
