// A min-heap of items by due time, first-in-first-out among equal times (for deliveries and timers).
import PolyCore

/// Items ordered by the instant they are due; ties leave in insertion order so runs are deterministic.
public struct DelayQueue<Element> {
    private struct Entry {
        let due: Instant
        let sequence: UInt64
        let element: Element

        func precedes(_ other: Entry) -> Bool {
            due != other.due ? due < other.due : sequence < other.sequence
        }
    }

    private var heap: [Entry] = []
    private var nextSequence: UInt64 = 0

    public init() {}

    public var count: Int { heap.count }
    public var isEmpty: Bool { heap.isEmpty }
    /// When the earliest item is due.
    public var nextDue: Instant? { heap.first?.due }

    public mutating func insert(_ element: Element, due: Instant) {
        heap.append(Entry(due: due, sequence: nextSequence, element: element))
        nextSequence &+= 1
        siftUp(heap.count - 1)
    }

    /// Removes and returns the earliest item if it is due at `now`.
    public mutating func popDue(at now: Instant) -> (due: Instant, element: Element)? {
        guard let first = heap.first, first.due <= now else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        return (first.due, first.element)
    }

    public mutating func removeAll() { heap.removeAll(keepingCapacity: true) }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var best = parent
            if left < heap.count, heap[left].precedes(heap[best]) { best = left }
            if right < heap.count, heap[right].precedes(heap[best]) { best = right }
            if best == parent { return }
            heap.swapAt(parent, best)
            parent = best
        }
    }
}
