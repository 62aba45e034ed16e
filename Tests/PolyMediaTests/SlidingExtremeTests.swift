// The sliding-window extreme behind the delay reference and the slowest recent packet, against a direct scan.
import PolyCore
import Testing

@testable import PolyMedia

@Suite struct SlidingExtremeTests {
    @Test(arguments: [false, true])
    func itIsTheExtremeOfTheSamplesInTheWindow(keepsLargest: Bool) {
        var random = SeededRandom(seed: 5)
        var extreme = SlidingExtreme(windowMilliseconds: 500, keepsLargest: keepsLargest, capacity: 64)
        var seen: [(time: Double, value: Double)] = []
        var time = 0.0
        for _ in 0..<5000 {
            time += random.unit() * 40  // irregular arrivals, sometimes at the same time
            let value = (random.unit() * 100).rounded()  // ties, which the newer sample must win
            extreme.add(value, atMs: time)
            seen.append((time, value))
            let inWindow = seen.filter { $0.time >= time - 500 }.map(\.value)
            #expect(extreme.value == (keepsLargest ? inWindow.max() : inWindow.min()))
        }
        extreme.removeAll()
        #expect(extreme.value == nil)
    }
}
