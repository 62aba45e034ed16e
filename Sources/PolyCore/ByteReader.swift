// Bounds-checked reading of network input: every parser of packets uses this, never raw indexing.

/// Why a `ByteReader` refused to read.
public enum ByteReaderError: Error, Equatable, Sendable {
    /// Fewer bytes were left than the read needed.
    case truncated(needed: Int, available: Int, at: Int)
}

/// A cursor over bytes that never reads out of bounds: each read checks the remaining length first.
///
/// Everything is `@inlinable` so parsers in other modules get a specialized, allocation-free reader
/// (unspecialized generic subscripts allocate on every byte).
/// Works over any byte collection, including `UnsafeRawBufferPointer` for per-packet parsing
/// without reference counting; it is `Sendable` when its bytes are.
@frozen
public struct ByteReader<Bytes: RandomAccessCollection> where Bytes.Element == UInt8, Bytes.Index == Int {
    public let bytes: Bytes
    @usableFromInline internal var cursor: Int
    @usableFromInline internal var limit: Int

    /// Absolute index of the next byte to read.
    @inlinable public var position: Int { cursor }
    /// Absolute index one past the last readable byte.
    @inlinable public var end: Int { limit }

    @inlinable public init(_ bytes: Bytes) {
        self.bytes = bytes
        self.cursor = bytes.startIndex
        self.limit = bytes.endIndex
    }

    // Wrapping arithmetic: every move is checked first, so startIndex <= cursor <= limit <= endIndex
    // always holds and these differences cannot overflow (no overflow trap on the per-packet path).
    @inlinable public var remaining: Int { limit &- cursor }
    @inlinable public var isAtEnd: Bool { cursor >= limit }
    /// Bytes read so far, relative to the start.
    @inlinable public var offset: Int { cursor &- bytes.startIndex }

    @inlinable @inline(__always) internal func need(_ count: Int) throws(ByteReaderError) {
        guard count >= 0, count <= remaining else {
            throw .truncated(needed: count, available: max(remaining, 0), at: offset)
        }
    }

    @inlinable @inline(__always) public mutating func readUInt8() throws(ByteReaderError) -> UInt8 {
        try need(1)
        defer { cursor &+= 1 }
        return bytes[cursor]
    }

    @inlinable @inline(__always) public mutating func readUInt16() throws(ByteReaderError) -> UInt16 {
        try need(2)
        defer { cursor &+= 2 }
        return UInt16(bytes[cursor]) << 8 | UInt16(bytes[cursor &+ 1])
    }

    @inlinable @inline(__always) public mutating func readUInt24() throws(ByteReaderError) -> UInt32 {
        try need(3)
        defer { cursor &+= 3 }
        return UInt32(bytes[cursor]) << 16 | UInt32(bytes[cursor &+ 1]) << 8 | UInt32(bytes[cursor &+ 2])
    }

    @inlinable @inline(__always) public mutating func readUInt32() throws(ByteReaderError) -> UInt32 {
        try need(4)
        defer { cursor &+= 4 }
        // Straight-line (no loop) so it inlines into per-packet parsers.
        let high = UInt32(bytes[cursor]) << 24 | UInt32(bytes[cursor &+ 1]) << 16
        return high | UInt32(bytes[cursor &+ 2]) << 8 | UInt32(bytes[cursor &+ 3])
    }

    @inlinable public mutating func readUInt64() throws(ByteReaderError) -> UInt64 {
        try need(8)
        defer { cursor &+= 8 }
        var value: UInt64 = 0
        for i in 0..<8 { value = value << 8 | UInt64(bytes[cursor &+ i]) }
        return value
    }

    /// The next `count` bytes as a slice of the underlying collection (no copy for slices/arrays).
    @inlinable public mutating func readBytes(_ count: Int) throws(ByteReaderError) -> Bytes.SubSequence {
        try need(count)
        defer { cursor &+= count }
        return bytes[cursor..<(cursor &+ count)]
    }

    @inlinable @inline(__always) public mutating func skip(_ count: Int) throws(ByteReaderError) {
        try need(count)
        cursor &+= count
    }

    /// Peeks at the byte `ahead` positions on without consuming; nil past the limit.
    @inlinable @inline(__always) public func peek(_ ahead: Int = 0) -> UInt8? {
        let index = cursor &+ ahead  // wraps below cursor for absurd values: nil, not a trap
        return index >= cursor && index < limit ? bytes[index] : nil
    }

    /// The next byte, consumed; nil at the end (for loops that stop cleanly at the end of input).
    @inlinable @inline(__always) public mutating func nextByte() -> UInt8? {
        guard cursor < limit else { return nil }
        defer { cursor &+= 1 }
        return bytes[cursor]
    }

    /// Ignores the last `count` readable bytes (e.g. RTP padding) — fails if they are not there.
    @inlinable @inline(__always) public mutating func dropLast(_ count: Int) throws(ByteReaderError) {
        try need(count)
        limit &-= count
    }
}

extension ByteReader: Sendable where Bytes: Sendable {}
