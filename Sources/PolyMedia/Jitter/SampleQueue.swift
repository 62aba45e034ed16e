// A preallocated FIFO of decoded samples waiting to be played (NetEq's "sync buffer").

/// Fixed-capacity FIFO of Int16 samples; never allocates after `init`. Samples move in bulk (memmove), not one by
/// one: this queue carries every played sample, so it is on the per-frame path of every call.
struct SampleQueue {
    private var storage: [Int16]
    private var head = 0
    private(set) var count = 0

    init(capacity: Int) { storage = [Int16](repeating: 0, count: capacity) }

    var capacity: Int { storage.count }
    var freeSpace: Int { storage.count - count }

    /// Appends as many of `samples` as fit; returns how many were appended.
    @discardableResult
    mutating func append(_ samples: UnsafeBufferPointer<Int16>) -> Int {
        let n = min(samples.count, freeSpace)
        guard n > 0, let source = samples.baseAddress else { return 0 }
        let end = reserveTail(n)
        storage.withUnsafeMutableBufferPointer { buffer in
            (buffer.baseAddress! + end).update(from: source, count: n)
        }
        count += n
        return n
    }

    /// Appends `n` zero samples (as many as fit).
    mutating func appendSilence(_ n: Int) {
        let n = min(n, freeSpace)
        guard n > 0 else { return }
        let end = reserveTail(n)
        storage.withUnsafeMutableBufferPointer { buffer in
            (buffer.baseAddress! + end).update(repeating: 0, count: n)
        }
        count += n
    }

    /// Moves `output.count` samples (or fewer if not available) into `output`; returns how many.
    @discardableResult
    mutating func read(into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        let n = min(output.count, count)
        guard n > 0, let destination = output.baseAddress else { return 0 }
        storage.withUnsafeBufferPointer { buffer in
            destination.update(from: buffer.baseAddress! + head, count: n)
        }
        head += n
        count -= n
        if count == 0 { head = 0 }
        return n
    }

    /// The last `n` queued samples, oldest first (n ≤ count).
    func copyTail(_ n: Int, into output: UnsafeMutableBufferPointer<Int16>) {
        guard n > 0, let destination = output.baseAddress else { return }
        storage.withUnsafeBufferPointer { buffer in
            destination.update(from: buffer.baseAddress! + head + count - n, count: n)
        }
    }

    mutating func removeAll() {
        head = 0
        count = 0
    }

    /// Makes room for `n` more samples after the queued ones (n ≤ freeSpace); returns where they go.
    private mutating func reserveTail(_ n: Int) -> Int {
        if head + count + n > storage.count { compact() }
        return head + count
    }

    private mutating func compact() {
        let (start, length) = (head, count)
        storage.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.update(from: buffer.baseAddress! + start, count: length)  // overlap is handled
        }
        head = 0
    }
}
