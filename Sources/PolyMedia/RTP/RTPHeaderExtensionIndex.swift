// Where the header extension elements with small IDs start, recorded during the one validating walk.
import PolyCore

/// Offsets of the first element of each ID 1–15 inside an RFC 8285 extension block, so looking an
/// element up after parsing costs no second walk of the block (the C-style single pass).
///
/// One byte per ID (16 bytes, read and written as bytes, like a C array): the element header's
/// offset from the start of the block plus one (0: absent). Offsets from 254 on and two-byte IDs
/// above 15 are not recorded: `isComplete` is then false and lookups of unrecorded IDs fall back to
/// walking the block.
@frozen public struct RTPHeaderExtensionIndex: Sendable, Equatable {
    @usableFromInline var slots: (UInt64, UInt64) = (0, 0)
    @usableFromInline var complete = true

    @inlinable public init() {}

    /// False when some element could not be recorded (lookups of absent IDs must then walk).
    @inlinable public var isComplete: Bool { complete }

    /// Records the element `id` (1–15) whose header starts `offset` bytes into the block; the first
    /// element of an ID wins.
    @inline(__always) @inlinable mutating func record(id: UInt8, offset: Int) {
        guard offset < 254 else {
            complete = false
            return
        }
        withUnsafeMutableBytes(of: &slots) { slots in
            let slot = Int(id & 0x0F)  // 16 slots: in bounds whatever the caller passes
            if slots[slot] == 0 { slots[slot] = UInt8(truncatingIfNeeded: offset &+ 1) }
        }
    }

    /// The element header's offset in the block: `.some(nil)` if known absent, nil if unknown.
    @inline(__always) @inlinable func offset(id: UInt8) -> Int?? {
        guard id < 16 else { return complete ? .some(nil) : nil }
        let slot = withUnsafeBytes(of: slots) { Int($0[Int(id)]) }
        if slot != 0 { return .some(slot &- 1) }
        return complete ? .some(nil) : nil
    }

    @inlinable public static func == (a: Self, b: Self) -> Bool {
        a.slots == b.slots && a.complete == b.complete
    }
}

extension RTPHeaderExtensionIndex {
    /// The one walk over a one-byte-form block (RFC 8285 §4.2), `block` limited to the block: checks
    /// every element fits and records where each starts. Padding and ID 0 are skipped a byte at a
    /// time; ID 15 ends the block.
    @inlinable @inline(__always) mutating func indexOneByteElements<Bytes>(
        of block: inout ByteReader<Bytes>
    ) throws(RTPParseError) {
        let base = block.position
        while let first = block.nextByte() {
            let id = first &>> 4
            if id == 0 { continue }
            if id == 15 { return }
            let offset = block.position &- 1 &- base
            do { try block.skip(Int(first & 0x0F) &+ 1) } catch { throw .headerExtensionElementTruncated(id: id) }
            record(id: id, offset: offset)
        }
    }

    /// The same for the two-byte form (RFC 8285 §4.3): a zero byte is padding; IDs above 15 are
    /// validated but not recorded (their lookups walk the block).
    @inlinable @inline(__always) mutating func indexTwoByteElements<Bytes>(
        of block: inout ByteReader<Bytes>
    ) throws(RTPParseError) {
        let base = block.position
        while let id = block.nextByte() {
            if id == 0 { continue }
            let offset = block.position &- 1 &- base
            guard let length = block.nextByte() else { throw .headerExtensionElementTruncated(id: id) }
            do { try block.skip(Int(length)) } catch { throw .headerExtensionElementTruncated(id: id) }
            if id < 16 {
                record(id: id, offset: offset)
            } else {
                complete = false
            }
        }
    }
}
