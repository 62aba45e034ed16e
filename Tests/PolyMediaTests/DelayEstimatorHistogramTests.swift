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

    @Test func shiftingMovesTheQuantilesAndKeepsTheMass() {
        var histogram = DecayingHistogram(binCount: 20)
        for bin in [2, 5, 5, 9, 18] { histogram.add(bin, forget: 0.9) }
        let weight = histogram.weight
        let before = [0.2, 0.5, 0.99].map { histogram.quantileBin($0) }
        histogram.shift(by: 3)
        #expect(histogram.weight == weight)
        // 18 + 3 is past the last bin: that mass stays in bin 19.
        #expect([0.2, 0.5, 0.99].map { histogram.quantileBin($0) } == [before[0] + 3, before[1] + 3, 19])
        histogram.shift(by: -7)
        // 2 + 3 − 7 is below bin 0: that mass stays in bin 0, the rest moves down by 7.
        #expect(histogram.quantileBin(0.001) == 0)
        #expect(histogram.quantileBin(0.5) == before[1] - 4)
        #expect(histogram.quantileBin(0.99) == 12)
        histogram.shift(by: -100)
        #expect(histogram.quantileBin(0.99) == 0)
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

    /// The same lazily scaled bins with the plain scan from bin 0 on every query (what the kept running sums
    /// replace): the answers must be identical, not merely close.
    struct ScanHistogram {
        var bins: [Double]
        var scale = 1.0
        var weight = 0.0
        mutating func add(_ bin: Int, forget: Double) {
            scale *= forget
            if scale < 1e-100 {
                for i in bins.indices { bins[i] *= scale }
                scale = 1
            }
            bins[bin] += (1 - forget) / scale
            weight = weight * forget + (1 - forget)
        }
        func quantileBin(_ q: Double) -> Int {
            guard weight > 0 else { return -1 }
            var sum = 0.0
            for (i, mass) in bins.enumerated() {
                sum += mass
                if sum >= q * weight / scale { return i }
            }
            return bins.count - 1
        }
    }

    @Test(arguments: [0.98, 0.9993])
    func quantilesAreExactlyTheScans(forget: Double) {
        var kept = DecayingHistogram(binCount: 200)
        var scan = ScanHistogram(bins: [Double](repeating: 0, count: 200))
        var random = SeededRandom(seed: 7)
        var (mismatches, belowAnswer, aboveAnswer) = (0, 0, 0)
        // 25 000 samples (forget 0.98 renormalises about every 11 400), spread wide enough that samples land below
        // and above the quantile, now and then past the last bin's share; queries in varying order and number.
        for n in 1...25_000 {
            let f = min(forget, 1 - 1 / Double(n + 1))
            let spread = 5 + Double((n / 3000) % 4) * 15
            let bin = min(199, Int(abs(random.normal(mean: 20, standardDeviation: spread))))
            kept.add(bin, forget: f)
            scan.add(bin, forget: f)
            let queries: [Double] = n % 3 == 0 ? [0.97, 0.9] : n % 3 == 1 ? [0.9, 0.97, 0.5] : [1.0]
            for q in queries {
                let answer = kept.quantileBin(q)
                if answer != scan.quantileBin(q) { mismatches += 1 }
                if bin <= answer { belowAnswer += 1 } else { aboveAnswer += 1 }
            }
        }
        #expect(mismatches == 0)
        #expect(belowAnswer > 1000 && aboveAnswer > 1000)  // both the re-adding and the binary search were used
    }

    @Test func emptyHistogramHasNoQuantile() {
        var histogram = DecayingHistogram(binCount: 10)
        #expect(histogram.quantileBin(0.9) == -1)
    }
}
