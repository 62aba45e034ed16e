// Big-endian writes into a caller's fixed buffer: the allocation-free counterpart of PolyCore's ByteWriter.

/// Writes into a buffer the caller has sized beforehand (callers check capacity once, up front).
/// Usable from inlinable code so serialization inlines into the caller's per-packet loop.
@usableFromInline struct FixedBufferWriter {
    @usableFromInline let buffer: UnsafeMutableRawBufferPointer
    @usableFromInline private(set) var count = 0

    @inlinable init(_ buffer: UnsafeMutableRawBufferPointer) { self.buffer = buffer }

    @inlinable mutating func write(_ value: UInt8) {
        buffer[count] = value
        count += 1
    }

    @inlinable mutating func write(_ value: UInt16) {
        buffer.storeBytes(of: value.bigEndian, toByteOffset: count, as: UInt16.self)
        count += 2
    }

    @inlinable mutating func write(_ value: UInt32) {
        buffer.storeBytes(of: value.bigEndian, toByteOffset: count, as: UInt32.self)
        count += 4
    }

    // Pointer arithmetic rather than slicing: the caller has checked capacity, and a slice would
    // range-check again on every packet.
    @inlinable mutating func write(bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, let base = buffer.baseAddress, !bytes.isEmpty else { return }
        (base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    @inlinable mutating func writeZeros(_ n: Int) {
        guard n > 0, let base = buffer.baseAddress else { return }
        (base + count).initializeMemory(as: UInt8.self, repeating: 0, count: n)
        count += n
    }
}
