// How long each soak call lasts: drawn in call-number order from one seeded generator, so a seed fixes every
// call's lifetime whatever order setups finish in.
import PolyCore

struct SoakLifetimes {
    let range: ClosedRange<Double>
    private var random: SeededRandom
    private var drawn: [Double] = []

    init(seconds range: ClosedRange<Double>, seed: UInt64) {
        self.range = range
        random = SeededRandom(seed: seed)
    }

    /// Call `index`'s lifetime in seconds, uniform in `range`.
    mutating func seconds(of index: Int) -> Double {
        while drawn.count <= index {
            drawn.append(range.lowerBound + random.unit() * (range.upperBound - range.lowerBound))
        }
        return drawn[index]
    }
}
