// A lock-free single-producer/single-consumer ring of samples: the only thing an audio callback touches.
import Synchronization

/// A fixed-capacity FIFO of samples shared by exactly one writer thread and one reader thread.
///
/// Neither side locks or allocates: `write` and `read` copy between caller buffers and the ring and
/// publish their position with one atomic store (release), the other side loading it (acquire). Safe
/// in a real-time audio callback. Using two writers or two readers at once is a programming error.
public final class SPSCRingBuffer<Sample: BitwiseCopyable>: @unchecked Sendable {
    /// Samples the ring can hold.
    public let capacity: Int
    private let storage: UnsafeMutablePointer<Sample>
    /// Total samples ever written / read; their difference is the fill (never more than `capacity`).
    private let written = Atomic<Int>(0)
    private let consumed = Atomic<Int>(0)

    /// A ring holding up to `capacity` samples (at least 1).
    public init(capacity: Int) {
        precondition(capacity > 0, "ring capacity must be positive")
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    /// Samples waiting to be read (a snapshot; exact when called by the reader).
    public var availableToRead: Int { written.load(ordering: .acquiring) - consumed.load(ordering: .acquiring) }

    /// Free room for writing (a snapshot; exact when called by the writer).
    public var availableToWrite: Int { capacity - availableToRead }

    /// Writer side: copies as many samples of `source` as fit; returns how many were written.
    @discardableResult
    public func write(_ source: UnsafeBufferPointer<Sample>) -> Int {
        guard let base = source.baseAddress else { return 0 }
        let head = written.load(ordering: .relaxed)
        let tail = consumed.load(ordering: .acquiring)
        let count = min(source.count, capacity - (head - tail))
        guard count > 0 else { return 0 }
        let start = head % capacity
        let first = min(count, capacity - start)
        (storage + start).update(from: base, count: first)
        if count > first { storage.update(from: base + first, count: count - first) }
        written.store(head + count, ordering: .releasing)
        return count
    }

    /// Reader side: moves up to `destination.count` samples out of the ring; returns how many.
    @discardableResult
    public func read(into destination: UnsafeMutableBufferPointer<Sample>) -> Int {
        guard let base = destination.baseAddress else { return 0 }
        let tail = consumed.load(ordering: .relaxed)
        let head = written.load(ordering: .acquiring)
        let count = min(destination.count, head - tail)
        guard count > 0 else { return 0 }
        let start = tail % capacity
        let first = min(count, capacity - start)
        base.update(from: storage + start, count: first)
        if count > first { (base + first).update(from: storage, count: count - first) }
        consumed.store(tail + count, ordering: .releasing)
        return count
    }

    /// Reader side: drops up to `count` waiting samples (e.g. to cut latency); returns how many.
    @discardableResult
    public func discard(_ count: Int) -> Int {
        let tail = consumed.load(ordering: .relaxed)
        let dropped = min(max(count, 0), written.load(ordering: .acquiring) - tail)
        consumed.store(tail + dropped, ordering: .releasing)
        return dropped
    }
}
