// The jitter buffer's packets in timestamp order, their payloads copied into reused fixed-size slots.
//
// A received payload is copied once, into a slot of a byte arena the store keeps. No allocation per packet: slots
// are recycled through a free list, and the arena's capacity is reserved up front for the buffer's packet limit
// (untouched until that many packets are buffered); only a payload larger than any before re-lays it out. Packets leave from the front (played or dropped), so the sorted list is short work.
import PolyCore

/// One buffered packet: its unwrapped timestamp, RTP marker bit and arrival, and where its payload is kept.
struct StoredPacket {
    var timestamp: Int64
    var arrival: Instant
    var marker: Bool
    /// Payload length in bytes.
    var length: Int
    fileprivate var slot: Int
}

/// Buffered packets sorted by timestamp, with their payloads.
struct PacketStore {
    private var packets: [StoredPacket] = []
    private var arena: [UInt8]
    private var slotBytes: Int
    private var freeSlots: [Int] = []
    private let capacity: Int
    /// `last?.timestamp`, kept in the store itself: the playout level is read on every pull, and this spares that
    /// read a visit to the packet array's heap memory (a cache miss per call when many calls are played in turn).
    private(set) var lastTimestamp: Int64?

    /// Reserves room for `capacity` packets with payloads of up to `slotBytes` bytes (slots are made as needed).
    init(capacity: Int, slotBytes: Int) {
        self.capacity = capacity
        self.slotBytes = max(1, slotBytes)
        arena = []
        arena.reserveCapacity(capacity * self.slotBytes)
        packets.reserveCapacity(capacity)
        freeSlots.reserveCapacity(capacity)
    }

    var count: Int { packets.count }
    var first: StoredPacket? { packets.first }
    var last: StoredPacket? { packets.last }
    subscript(index: Int) -> StoredPacket { packets[index] }

    /// Where a packet with `timestamp` belongs: before the first packet with an equal or later timestamp.
    func insertionIndex(_ timestamp: Int64) -> Int {
        // Packets nearly always arrive in order: the newest goes at the end.
        guard let last = lastTimestamp, last >= timestamp else { return packets.count }
        var low = 0
        var high = packets.count
        while low < high {
            let mid = (low + high) / 2
            if packets[mid].timestamp < timestamp { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Inserts a packet at `index` (from `insertionIndex`), copying `payload` into a free slot.
    mutating func insert(
        timestamp: Int64, arrival: Instant, marker: Bool, payload: UnsafeBufferPointer<UInt8>, at index: Int
    ) {
        if payload.count > slotBytes { growSlots(toHold: payload.count) }
        let slot = freeSlots.popLast() ?? addSlot()
        if let source = payload.baseAddress {
            let offset = slot * slotBytes
            arena.withUnsafeMutableBufferPointer { arena in
                (arena.baseAddress! + offset).update(from: source, count: payload.count)
            }
        }
        packets.insert(
            StoredPacket(timestamp: timestamp, arrival: arrival, marker: marker, length: payload.count, slot: slot),
            at: index)
        if index == packets.count - 1 { lastTimestamp = timestamp }
    }

    /// Calls `body` with the payload of `packet` (which must still be in the store).
    func withPayload<Result>(
        of packet: StoredPacket, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
    ) rethrows -> Result {
        try arena.withUnsafeBufferPointer { arena in
            try body(
                UnsafeBufferPointer(
                    rebasing: arena[(packet.slot * slotBytes)..<(packet.slot * slotBytes + packet.length)]))
        }
    }

    mutating func removeFirst() {
        freeSlots.append(packets.removeFirst().slot)
        if packets.isEmpty { lastTimestamp = nil }
    }

    mutating func removeAll() {
        for packet in packets { freeSlots.append(packet.slot) }
        packets.removeAll(keepingCapacity: true)
        lastTimestamp = nil
    }

    /// A new slot at the end of the arena (more packets buffered than ever before).
    private mutating func addSlot() -> Int {
        arena.append(contentsOf: repeatElement(0, count: slotBytes))
        return arena.count / slotBytes - 1
    }

    /// Re-lays the arena out with slots large enough for `bytes` (a larger payload than ever before).
    private mutating func growSlots(toHold bytes: Int) {
        var size = slotBytes
        while size < bytes { size *= 2 }
        let slots = arena.count / slotBytes
        var grown: [UInt8] = []
        grown.reserveCapacity(max(capacity, slots) * size)
        for slot in 0..<slots {
            grown.append(contentsOf: arena[(slot * slotBytes)..<((slot + 1) * slotBytes)])
            grown.append(contentsOf: repeatElement(0, count: size - slotBytes))
        }
        arena = grown
        slotBytes = size
    }
}
