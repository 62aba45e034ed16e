// Fuzzes PolyCore's ByteReader: a script of reads driven by the input must never trap.
import PolyCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzByteReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var reader = ByteReader(bytes)
    var ops = 0
    while !reader.isAtEnd, ops < 64 {
        ops += 1
        guard let op = try? reader.readUInt8() else { break }
        switch op % 8 {
        case 0: _ = try? reader.readUInt16()
        case 1: _ = try? reader.readUInt24()
        case 2: _ = try? reader.readUInt32()
        case 3: _ = try? reader.readUInt64()
        case 4: _ = try? reader.readBytes(Int(op >> 3) - 4)
        case 5: _ = try? reader.skip(Int(op >> 3))
        case 6: _ = try? reader.dropLast(Int(op >> 3))
        default: _ = reader.peek(Int(op >> 3))
        }
    }
    return 0
}
