// Virtual-time tests of how the jitter buffer conceals a lone lost packet whose successor is already buffered.
import PolyCore
import Testing

@testable import PolyMedia

@Suite struct JitterBufferGapTests {
    /// A 200 Hz tone (a whole number of samples per period, so the packet after a loss, extended backwards, is the
    /// lost packet itself); packets without FEC arrive 30 ms after sending, except those in `lost` and packet 30.
    /// That first loss makes the buffer hold half a packet more (for FEC), so that at the later losses the next
    /// packet is there (on a clean path the buffer runs too shallow for that, once the start delay is over: it is
    /// left out, as the two seconds are all inside it).
    static func run(losing lost: Set<Int>, fec: Bool = false) -> TraceRun {
        let packets = (0..<100).map { k in
            TracePacket(
                index: k, arrivalMs: lost.contains(k) || k == 30 ? nil : Double(k) * 20 + 30,
                payload: FakeDecoder.payload(index: k, fec: fec))
        }
        return runTrace(packets, durationMs: 2000, configuration: .withoutStartDelay, frequency: 200)
    }

    /// Where the tone's packet `index` starts in `output` (it plays whole and unchanged), searched from `from`.
    static func start(ofPacket index: Int, in output: [Int16], from: Int) -> Int? {
        var decoder = FakeDecoder()
        decoder.frequency = 200
        let packet = (0..<960).map { decoder.tone(index * 960 + $0) }
        return (from...(output.count - 960)).first { output[$0..<($0 + 960)].elementsEqual(packet) }
    }

    @Test func aLoneLossEndsOnTheAudioAfterIt() throws {
        let run = Self.run(losing: [50])
        #expect(run.statistics.interpolatedConcealments == 1)
        #expect(run.statistics.concealmentEvents == 2)
        let before = try #require(Self.start(ofPacket: 49, in: run.output, from: 40 * 960))
        let gap = before + 960
        #expect(Self.start(ofPacket: 51, in: run.output, from: gap) == gap + 960)
        // The fake's PLC is silence, faded into the tone: at the gap's start silence, at its end the lost audio.
        var decoder = FakeDecoder()
        decoder.frequency = 200
        let lost = (0..<960).map { decoder.tone(50 * 960 + $0) }
        #expect(abs(run.output[gap]) <= 1)
        #expect((864..<960).allSatisfy { abs(Int(run.output[gap + $0]) - Int(lost[$0])) <= 240 })
    }

    @Test func onlyTheLastPacketOfABurstEndsOnTheAudioAfterIt() throws {
        let run = Self.run(losing: [50, 51, 52])
        #expect(run.statistics.interpolatedConcealments == 1)
        #expect(run.statistics.concealmentEvents == 2)
        let before = try #require(Self.start(ofPacket: 49, in: run.output, from: 40 * 960))
        // Two packets of the fake's PLC (silence), then the fade into packet 53.
        #expect(run.output[(before + 960)..<(before + 3 * 960)].allSatisfy { $0 == 0 })
        #expect(run.output[(before + 3 * 960)..<(before + 4 * 960)].contains { abs($0) > 4000 })
        #expect(Self.start(ofPacket: 53, in: run.output, from: before) == before + 4 * 960)
    }

    /// A shell that pulls 20 ms per tick (two 10 ms pulls at one instant) sees the buffered level swing by 20 ms
    /// with the tick's phase. A lone loss concealed in place does not move the delay, so playout must not stretch
    /// after it. (When the level filter restarted from that swinging measurement after each concealment, eight of
    /// these twenty phases stretched.)
    @Test(arguments: 0..<20)
    func aLossConcealedInPlaceLeavesTheLevelAlone(phaseMs: Int) {
        var buffer = JitterBuffer(decoder: FakeDecoder(), configuration: JitterBufferConfiguration())
        var frame = [Int16](repeating: 0, count: 480)
        var stretched: UInt64 = 0
        for k in 0..<400 {
            let arrival = Instant.milliseconds(Int64(k) * 20 + 37)
            // Lose every 10th packet from 2 s on (one at 1 s makes the buffer hold room for the next packet).
            if k != 50 && !(k >= 100 && k % 10 == 0) {
                let packet = JitterPacket(
                    sequence: UInt16(k), timestamp: UInt32(k * 960), ssrc: 1, marker: k == 0,
                    payload: FakeDecoder.payload(index: k, fec: false), arrival: arrival)
                buffer.insert(packet, at: arrival)
            }
            let tick = arrival + .milliseconds(Int64(phaseMs))
            let before =
                buffer.statistics.insertedSamplesForDeceleration + buffer.statistics.removedSamplesForAcceleration
            for _ in 0..<2 { frame.withUnsafeMutableBufferPointer { _ = buffer.pull(at: tick, into: $0) } }
            let after =
                buffer.statistics.insertedSamplesForDeceleration + buffer.statistics.removedSamplesForAcceleration
            if k >= 100 { stretched += after - before }
        }
        #expect(buffer.statistics.concealmentEvents >= 31)  // every loss (and the one at 1 s) concealed
        #expect(stretched == 0)
    }

    @Test func inBandFECComesFirst() {
        let run = Self.run(losing: [50], fec: true)
        #expect(run.statistics.fecPacketsRecovered == 1)  // packet 50's
        #expect(run.statistics.interpolatedConcealments == 0)
    }
}
