// The jitter buffer's packet store: timestamp order, payloads kept intact through slot reuse and slot growth.
import PolyCore
import Testing

@testable import PolyMedia

@Suite struct PacketStoreTests {
    /// A payload whose bytes identify the packet (so a mixed-up or overwritten slot shows).
    func payload(_ id: Int, length: Int = 80) -> [UInt8] {
        (0..<length).map { UInt8(truncatingIfNeeded: id &* 31 &+ $0) }
    }

    func insert(_ id: Int, timestamp: Int64, length: Int = 80, into store: inout PacketStore) {
        let bytes = payload(id, length: length)
        bytes.withUnsafeBufferPointer { bytes in
            store.insert(
                timestamp: timestamp, arrival: .milliseconds(timestamp), marker: id == 0, payload: bytes,
                at: store.insertionIndex(timestamp))
        }
    }

    func storedPayload(at index: Int, of store: PacketStore) -> [UInt8] {
        store.withPayload(of: store[index]) { Array($0) }
    }

    @Test func keepsTimestampOrderForInOrderAndReorderedPackets() {
        var store = PacketStore(capacity: 8, slotBytes: 128)
        for (id, timestamp) in [(0, 0), (1, 960), (3, 2880), (2, 1920), (5, 4800), (4, 3840)] {
            insert(id, timestamp: Int64(timestamp), into: &store)
        }
        #expect((0..<store.count).map { store[$0].timestamp } == [0, 960, 1920, 2880, 3840, 4800])
        #expect((0..<store.count).map { storedPayload(at: $0, of: store) } == (0..<6).map { payload($0) })
        #expect(store.first?.marker == true)
        #expect(store.last?.arrival == .milliseconds(4800))
    }

    @Test func lastTimestampFollowsTheNewestPacket() {
        var store = PacketStore(capacity: 16, slotBytes: 128)
        var random = SeededRandom(seed: 3)
        var id = 0
        for _ in 0..<2000 {
            if random.unit() < 0.55 || store.count == 0 {
                let timestamp = Int64(random.next() % 40) * 960  // in order, reordered and duplicate timestamps
                if store.count < 15, !(0..<store.count).contains(where: { store[$0].timestamp == timestamp }) {
                    insert(id, timestamp: timestamp, into: &store)
                    id += 1
                }
            } else if random.unit() < 0.97 {
                store.removeFirst()
            } else {
                store.removeAll()
            }
            #expect(store.lastTimestamp == store.last?.timestamp)
        }
        #expect(id > 500)
    }

    @Test func insertionIndexPointsAtAnEqualTimestamp() {
        var store = PacketStore(capacity: 8, slotBytes: 128)
        for k in 0..<4 { insert(k, timestamp: Int64(k * 960), into: &store) }
        #expect(store.insertionIndex(1920) == 2)  // a duplicate finds its twin
        #expect(store.insertionIndex(1000) == 2)
        #expect(store.insertionIndex(-5) == 0)
        #expect(store.insertionIndex(9999) == 4)
    }

    @Test func reusedSlotsNeverMixUpPayloads() {
        var store = PacketStore(capacity: 4, slotBytes: 64)
        var next = 0
        // Play from the front while packets keep arriving (some out of order), over many slot reuses.
        for round in 0..<200 {
            let timestamps = round % 3 == 0 ? [next + 1, next] : [next, next + 1]
            for t in timestamps { insert(t, timestamp: Int64(t), length: 1 + t % 60, into: &store) }
            next += 2
            #expect(
                store.first.map {
                    storedPayload(at: 0, of: store) == payload(Int($0.timestamp), length: 1 + Int($0.timestamp) % 60)
                } == true)
            store.removeFirst()
            if round % 5 == 0 { store.removeFirst() }
            if store.count > 3 { store.removeAll() }
        }
        for index in 0..<store.count {
            let id = Int(store[index].timestamp)
            #expect(storedPayload(at: index, of: store) == payload(id, length: 1 + id % 60))
        }
    }

    @Test func largerPayloadEnlargesSlotsAndKeepsBufferedOnes() {
        var store = PacketStore(capacity: 4, slotBytes: 16)
        for k in 0..<3 { insert(k, timestamp: Int64(k), length: 16, into: &store) }
        insert(3, timestamp: 3, length: 1500, into: &store)
        insert(4, timestamp: 4, length: 7, into: &store)  // more packets than the reserved capacity
        #expect(store.count == 5)
        #expect(
            (0..<5).map { storedPayload(at: $0, of: store) } == [
                payload(0, length: 16), payload(1, length: 16), payload(2, length: 16), payload(3, length: 1500),
                payload(4, length: 7),
            ])
        #expect(store[3].length == 1500)
    }

    @Test func emptyPayloadIsStored() {
        var store = PacketStore(capacity: 2, slotBytes: 16)
        insert(0, timestamp: 0, length: 0, into: &store)
        #expect(store.count == 1)
        #expect(storedPayload(at: 0, of: store).isEmpty)
    }
}
