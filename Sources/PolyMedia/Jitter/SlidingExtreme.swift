// The least or the largest value of a sliding time window, in amortised constant time per sample.
//
// A monotonic deque: a new sample removes every older one it beats (they can never be the extreme again while it is
// in the window), so the front is always the extreme, and it leaves once it is older than the window. Storage is
// reserved up front and compacted in place: no allocation per sample.

/// The extreme (least or largest) value of the samples of the last `windowMilliseconds`.
struct SlidingExtreme {
    let windowMilliseconds: Double
    private let keepsLargest: Bool
    private var samples: [(time: Double, value: Double)] = []
    private var head = 0

    /// `keepsLargest` chooses the largest value, else the least; room for `capacity` samples is reserved.
    init(windowMilliseconds: Double, keepsLargest: Bool, capacity: Int = 2048) {
        self.windowMilliseconds = windowMilliseconds
        self.keepsLargest = keepsLargest
        samples.reserveCapacity(capacity)
    }

    /// Adds `value` seen at `timeMs` (times never go back) and forgets samples older than the window.
    mutating func add(_ value: Double, atMs timeMs: Double) {
        while samples.count > head, beaten(samples[samples.count - 1].value, by: value) { samples.removeLast() }
        samples.append((timeMs, value))
        while head < samples.count - 1, samples[head].time < timeMs - windowMilliseconds { head += 1 }
        if head > 256 {
            samples.removeFirst(head)
            head = 0
        }
    }

    /// The extreme value of the window, nil before the first sample.
    var value: Double? { samples.count > head ? samples[head].value : nil }

    mutating func removeAll() {
        samples.removeAll(keepingCapacity: true)
        head = 0
    }

    private func beaten(_ old: Double, by new: Double) -> Bool { keepsLargest ? old <= new : old >= new }
}
