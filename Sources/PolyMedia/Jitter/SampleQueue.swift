// A preallocated FIFO of decoded samples waiting to be played (NetEq's "sync buffer").

/// Fixed-capacity FIFO of Int16 samples; never allocates after `init`.
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
        if head + count + n > storage.count { compact() }
        storage.withUnsafeMutableBufferPointer { buffer in
            for i in 0..<n { buffer[head + count + i] = samples[i] }
        }
        count += n
        return n
    }

    /// Appends `n` zero samples (as many as fit).
    mutating func appendSilence(_ n: Int) {
        let n = min(n, freeSpace)
        if head + count + n > storage.count { compact() }
        storage.withUnsafeMutableBufferPointer { buffer in
            for i in 0..<n { buffer[head + count + i] = 0 }
        }
        count += n
    }

    /// Moves `output.count` samples (or fewer if not available) into `output`; returns how many.
    @discardableResult
    mutating func read(into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        let n = min(output.count, count)
        storage.withUnsafeBufferPointer { buffer in
            for i in 0..<n { output[i] = buffer[head + i] }
        }
        head += n
        count -= n
        if count == 0 { head = 0 }
        return n
    }

    /// The last `n` queued samples, oldest first (n ≤ count).
    func copyTail(_ n: Int, into output: UnsafeMutableBufferPointer<Int16>) {
        storage.withUnsafeBufferPointer { buffer in
            for i in 0..<n { output[i] = buffer[head + count - n + i] }
        }
    }

    mutating func removeAll() {
        head = 0
        count = 0
    }

    private mutating func compact() {
        let (start, length) = (head, count)
        storage.withUnsafeMutableBufferPointer { buffer in
            for i in 0..<length { buffer[i] = buffer[start + i] }
        }
        head = 0
    }
}
