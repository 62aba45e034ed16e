// Where the header extension elements with small IDs start, recorded during the one validating walk.
import PolyCore

/// Offsets of the first element of each ID 1–15 inside an RFC 8285 extension block, so looking an
/// element up after parsing costs no second walk of the block (the C-style single pass).
///
/// One byte per ID, packed into two integers (IDs 0–7, 8–15): the element header's offset from the
/// start of the block plus one (0: absent). Shifts and masks keep the index in registers while the
/// walk records and the lookup reads it; a byte array written bytewise and then loaded whole would
/// stall store forwarding on every packet. Offsets from 254 on and two-byte IDs above 15 are not
/// recorded: `isComplete` is then false and lookups of unrecorded IDs fall back to walking the block.
@frozen public struct RTPHeaderExtensionIndex: Sendable, Equatable {
    @usableFromInline var low: UInt64 = 0
    @usableFromInline var high: UInt64 = 0
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
        let shift = UInt64(id & 7) &* 8  // IDs above 15 fold onto a slot: callers pass 1–15
        let value = UInt64(truncatingIfNeeded: offset &+ 1) &<< shift
        if id & 8 == 0 {
            if (low &>> shift) & 0xFF == 0 { low |= value }
        } else {
            if (high &>> shift) & 0xFF == 0 { high |= value }
        }
    }

    /// The element header's offset in the block: `.some(nil)` if known absent, nil if unknown.
    @inline(__always) @inlinable func offset(id: UInt8) -> Int?? {
        guard id < 16 else { return complete ? .some(nil) : nil }
        let slot = Int(truncatingIfNeeded: ((id < 8 ? low : high) &>> (UInt64(id & 7) &* 8)) & 0xFF)
        if slot != 0 { return .some(slot &- 1) }
        return complete ? .some(nil) : nil
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
