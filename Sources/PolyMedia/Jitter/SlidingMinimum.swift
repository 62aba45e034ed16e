// The least value of a sliding time window, in amortised constant time per sample.
//
// A monotonic deque: a new sample removes every older one that is not smaller (they can never be the least again
// while it is in the window), so the front is always the least, and it leaves once it is older than the window.
// Storage is reserved up front and compacted in place: no allocation per sample.

/// The least value of the samples of the last `windowMilliseconds`.
struct SlidingMinimum {
    let windowMilliseconds: Double
    private var samples: [(time: Double, value: Double)] = []
    private var head = 0

    /// Room for `capacity` samples is reserved.
    init(windowMilliseconds: Double, capacity: Int = 2048) {
        self.windowMilliseconds = windowMilliseconds
        samples.reserveCapacity(capacity)
    }

    /// Adds `value` seen at `timeMs` (times never go back) and forgets samples older than the window.
    mutating func add(_ value: Double, atMs timeMs: Double) {
        while samples.count > head, samples[samples.count - 1].value >= value { samples.removeLast() }
        samples.append((timeMs, value))
        while head < samples.count - 1, samples[head].time < timeMs - windowMilliseconds { head += 1 }
        if head > 256 {
            samples.removeFirst(head)
            head = 0
        }
    }

    /// The least value of the window, nil before the first sample.
    var value: Double? { samples.count > head ? samples[head].value : nil }

    mutating func removeAll() {
        samples.removeAll(keepingCapacity: true)
        head = 0
    }
}
