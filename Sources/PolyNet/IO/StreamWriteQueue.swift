// Bytes waiting for a non-blocking stream socket: whole chunks in order, the first one possibly half written.

/// A FIFO of byte chunks for a stream whose writes may be partial or refused (EAGAIN). Sans-IO: `flush`
/// takes the write call, so tests can drive it with any pattern of short writes.
public struct StreamWriteQueue: Sendable {
    private var chunks: [[UInt8]] = []
    /// How much of `chunks[0]` is already written.
    private var offset = 0
    /// Bytes not yet written.
    public private(set) var count = 0

    public init() {}

    public var isEmpty: Bool { count == 0 }

    /// Queues `bytes` after what is already waiting.
    public mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        chunks.append(bytes)
        count += bytes.count
    }

    /// Writes as much as `write` takes. `write` returns how many bytes of the buffer it wrote (0: the
    /// socket would block); a throw stops the flush and leaves the queue as it was before that call.
    public mutating func flush<E: Error>(_ write: (UnsafeRawBufferPointer) throws(E) -> Int) throws(E) {
        while let first = chunks.first {
            let start = offset
            let written = try first.withUnsafeBytes { buffer in
                Result { () throws(E) -> Int in try write(UnsafeRawBufferPointer(rebasing: buffer[start...])) }
            }.get()
            guard written > 0 else { return }
            count -= written
            offset += written
            guard offset == first.count else { return }  // short write: the kernel buffer is full
            chunks.removeFirst()
            offset = 0
        }
    }
}
