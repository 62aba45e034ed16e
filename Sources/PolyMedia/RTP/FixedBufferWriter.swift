// Big-endian writes into a caller's fixed buffer: the allocation-free counterpart of PolyCore's ByteWriter.

/// Writes into a buffer the caller has sized beforehand (callers check capacity once, up front).
struct FixedBufferWriter {
    let buffer: UnsafeMutableRawBufferPointer
    private(set) var count = 0

    init(_ buffer: UnsafeMutableRawBufferPointer) { self.buffer = buffer }

    mutating func write(_ value: UInt8) {
        buffer[count] = value
        count += 1
    }

    mutating func write(_ value: UInt16) {
        buffer.storeBytes(of: value.bigEndian, toByteOffset: count, as: UInt16.self)
        count += 2
    }

    mutating func write(_ value: UInt32) {
        buffer.storeBytes(of: value.bigEndian, toByteOffset: count, as: UInt32.self)
        count += 4
    }

    mutating func write(bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        UnsafeMutableRawBufferPointer(rebasing: buffer[count..<(count + bytes.count)]).copyMemory(from: bytes)
        count += bytes.count
    }

    mutating func writeZeros(_ n: Int) {
        guard n > 0 else { return }
        UnsafeMutableRawBufferPointer(rebasing: buffer[count..<(count + n)]).initializeMemory(
            as: UInt8.self, repeating: 0)
        count += n
    }
}
