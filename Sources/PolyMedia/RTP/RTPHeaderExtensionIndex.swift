// Where the header extension elements with small IDs start, recorded during the one validating walk.

/// Offsets of the first element of each ID 1–15 inside an RFC 8285 extension block, so looking an
/// element up after parsing costs no second walk of the block (the C-style single pass).
///
/// One byte per ID, packed into two registers (IDs 0–7, 8–15) so recording stays out of memory:
/// the element header's offset from the start of the block plus one (0: absent). Offsets from 254
/// on and two-byte IDs above 15 are not recorded: `isComplete` is then false and lookups of
/// unrecorded IDs fall back to walking the block.
@frozen public struct RTPHeaderExtensionIndex: Sendable, Equatable {
    @usableFromInline var low: UInt64 = 0
    @usableFromInline var high: UInt64 = 0
    @usableFromInline var complete = true

    @inlinable public init() {}

    /// False when some element could not be recorded (lookups of absent IDs must then walk).
    @inlinable public var isComplete: Bool { complete }

    /// Records the element `id` whose header starts `offset` bytes into the block (first one wins).
    @inline(__always) @inlinable mutating func record(id: UInt8, offset: Int) {
        guard id < 16, offset < 254 else {
            complete = false
            return
        }
        let shift = UInt64(id & 7) &* 8
        let value = UInt64(truncatingIfNeeded: offset &+ 1) &<< shift
        if id < 8 {
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
