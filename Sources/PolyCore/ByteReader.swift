// Bounds-checked reading of network input: every parser of packets uses this, never raw indexing.

/// Why a `ByteReader` refused to read.
public enum ByteReaderError: Error, Equatable, Sendable {
    /// Fewer bytes were left than the read needed.
    case truncated(needed: Int, available: Int, at: Int)
}

/// A cursor over bytes that never reads out of bounds: each read checks the remaining length first.
public struct ByteReader<Bytes: RandomAccessCollection>: Sendable
where Bytes.Element == UInt8, Bytes.Index == Int, Bytes: Sendable {
    public let bytes: Bytes
    /// Absolute index of the next byte to read.
    public private(set) var position: Int
    /// Absolute index one past the last readable byte.
    public private(set) var end: Int

    public init(_ bytes: Bytes) {
        self.bytes = bytes
        self.position = bytes.startIndex
        self.end = bytes.endIndex
    }

    public var remaining: Int { end - position }
    public var isAtEnd: Bool { position >= end }
    /// Bytes read so far, relative to the start.
    public var offset: Int { position - bytes.startIndex }

    private func need(_ count: Int) throws(ByteReaderError) {
        guard count >= 0, count <= remaining else {
            throw .truncated(needed: count, available: max(remaining, 0), at: offset)
        }
    }

    public mutating func readUInt8() throws(ByteReaderError) -> UInt8 {
        try need(1)
        defer { position += 1 }
        return bytes[position]
    }

    public mutating func readUInt16() throws(ByteReaderError) -> UInt16 {
        try need(2)
        defer { position += 2 }
        return UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
    }

    public mutating func readUInt24() throws(ByteReaderError) -> UInt32 {
        try need(3)
        defer { position += 3 }
        return UInt32(bytes[position]) << 16 | UInt32(bytes[position + 1]) << 8 | UInt32(bytes[position + 2])
    }

    public mutating func readUInt32() throws(ByteReaderError) -> UInt32 {
        try need(4)
        defer { position += 4 }
        var value: UInt32 = 0
        for i in 0..<4 { value = value << 8 | UInt32(bytes[position + i]) }
        return value
    }

    public mutating func readUInt64() throws(ByteReaderError) -> UInt64 {
        try need(8)
        defer { position += 8 }
        var value: UInt64 = 0
        for i in 0..<8 { value = value << 8 | UInt64(bytes[position + i]) }
        return value
    }

    /// The next `count` bytes as a slice of the underlying collection (no copy for slices/arrays).
    public mutating func readBytes(_ count: Int) throws(ByteReaderError) -> Bytes.SubSequence {
        try need(count)
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    public mutating func skip(_ count: Int) throws(ByteReaderError) {
        try need(count)
        position += count
    }

    /// Peeks at the byte `ahead` positions on without consuming; nil past the end.
    public func peek(_ ahead: Int = 0) -> UInt8? {
        let index = position + ahead
        return index >= position && index < end ? bytes[index] : nil
    }

    /// Ignores the last `count` readable bytes (e.g. RTP padding) — fails if they are not there.
    public mutating func dropLast(_ count: Int) throws(ByteReaderError) {
        try need(count)
        end -= count
    }
}
