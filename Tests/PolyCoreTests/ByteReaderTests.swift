import PolyCore
import Testing

@Suite struct ByteReaderTests {
    @Test func readsBigEndianIntegers() throws {
        var reader = ByteReader([0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07] as [UInt8])
        #expect(try reader.readUInt8() == 0x01)
        #expect(try reader.readUInt16() == 0x0203)
        #expect(try reader.readUInt32() == 0x0405_0607)
        #expect(reader.isAtEnd)
    }

    @Test func refusesToReadPastTheEnd() throws {
        var reader = ByteReader([0xAA, 0xBB, 0xCC] as [UInt8])
        _ = try reader.readUInt16()
        #expect(throws: ByteReaderError.truncated(needed: 4, available: 1, at: 2)) { try reader.readUInt32() }
        #expect(throws: ByteReaderError.truncated(needed: -1, available: 1, at: 2)) { try reader.readBytes(-1) }
        #expect(try reader.readUInt8() == 0xCC)
    }

    @Test func peeksOnlyInsideTheLimit() throws {
        var reader = ByteReader([0x10, 0x20, 0x30, 0x40] as [UInt8])
        _ = try reader.readUInt8()
        try reader.dropLast(1)
        #expect(reader.peek() == 0x20)
        #expect(reader.peek(1) == 0x30)
        #expect(reader.peek(2) == nil)  // dropped by dropLast
        #expect(reader.peek(-1) == nil)
        #expect(reader.peek(Int.max) == nil)  // an absurd distance is refused, not an overflow trap
        #expect(reader.remaining == 2)
    }

    @Test func worksOnSlicesWithNonZeroStart() throws {
        let bytes: [UInt8] = [9, 9, 1, 2, 3]
        var reader = ByteReader(bytes[2...])
        #expect(try reader.readUInt8() == 1)
        #expect(reader.offset == 1)
        try reader.dropLast(1)
        #expect(Array(try reader.readBytes(1)) == [2])
        #expect(reader.isAtEnd)
    }

    @Test func writerRoundTrips() throws {
        var writer = ByteWriter()
        writer.write(UInt8(7))
        writer.write(UInt16(0xBEEF))
        writer.write(UInt32(0xDEAD_BEEF))
        writer.write(UInt64(0x0102_0304_0506_0708))
        writer.patch(0xCAFE, at: 1)
        var reader = ByteReader(writer.bytes)
        #expect(try reader.readUInt8() == 7)
        #expect(try reader.readUInt16() == 0xCAFE)
        #expect(try reader.readUInt32() == 0xDEAD_BEEF)
        #expect(try reader.readUInt64() == 0x0102_0304_0506_0708)
    }

    @Test func seededRandomIsDeterministic() {
        var a = SeededRandom(seed: 42)
        var b = SeededRandom(seed: 42)
        var c = SeededRandom(seed: 43)
        let first = (0..<4).map { _ in a.next() }
        #expect(first == (0..<4).map { _ in b.next() })
        #expect(first != (0..<4).map { _ in c.next() })
        let units = (0..<1000).map { _ in a.unit() }
        #expect(units.allSatisfy { $0 >= 0 && $0 < 1 })
    }

    @Test func instantArithmetic() {
        let t = Instant.milliseconds(1500)
        #expect((t + .milliseconds(20)).nanoseconds == 1_520_000_000)
        #expect(((t + .milliseconds(20)) - t) == .milliseconds(20))
        #expect(Duration.milliseconds(250).inSeconds == 0.25)
    }
}
