// The sliding-window minimum behind the delay reference, against a direct scan.
import PolyCore
import Testing

@testable import PolyMedia

@Suite struct SlidingMinimumTests {
    @Test func itIsTheLeastOfTheSamplesInTheWindow() {
        var random = SeededRandom(seed: 5)
        var minimum = SlidingMinimum(windowMilliseconds: 500, capacity: 64)
        var seen: [(time: Double, value: Double)] = []
        var time = 0.0
        for _ in 0..<5000 {
            time += random.unit() * 40  // irregular arrivals, sometimes at the same time
            let value = (random.unit() * 100).rounded()  // ties, which the newer sample must win
            minimum.add(value, atMs: time)
            seen.append((time, value))
            #expect(minimum.value == seen.filter { $0.time >= time - 500 }.map(\.value).min())
        }
        minimum.removeAll()
        #expect(minimum.value == nil)
    }
}
