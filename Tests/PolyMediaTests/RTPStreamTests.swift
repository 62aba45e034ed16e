import PolyCore
import Testing

@testable import PolyMedia

@Suite struct RTPOutgoingStreamTests {
    @Test func randomInitialValuesComeFromTheGenerator() {
        var a = SeededRandom(seed: 1)
        var b = SeededRandom(seed: 1)
        var c = SeededRandom(seed: 2)
        let s1 = RTPOutgoingStream(payloadType: 111, using: &a)
        let s2 = RTPOutgoingStream(payloadType: 111, using: &b)
        let s3 = RTPOutgoingStream(payloadType: 111, using: &c)
        #expect(s1.ssrc == s2.ssrc && s1.nextSequenceNumber == s2.nextSequenceNumber)
        #expect(s1.nextTimestamp == s2.nextTimestamp)
        #expect(s1.ssrc != s3.ssrc)
        #expect(s1.ssrc != 0)
    }

    @Test func sequenceAndTimestampWrapAround() {
        var stream = RTPOutgoingStream(
            ssrc: 1, payloadType: 111, initialSequenceNumber: 65535, initialTimestamp: UInt32.max - 959)
        let increment = OpusRTPPayload.timestampIncrement(frameMilliseconds: 20)
        #expect(increment == 960)
        let first = stream.makeHeader(samples: increment)
        let second = stream.makeHeader(samples: increment)
        #expect(first.sequenceNumber == 65535 && second.sequenceNumber == 0)
        #expect(first.timestamp == UInt32.max - 959 && second.timestamp == 0)
    }

    @Test func markerOnFirstPacketAndAfterDTX() {
        var stream = RTPOutgoingStream(ssrc: 1, payloadType: 111, initialSequenceNumber: 10, initialTimestamp: 0)
        #expect(stream.makeHeader(samples: 960).marker)
        #expect(!stream.makeHeader(samples: 960).marker)
        stream.skipFrame(samples: 960)
        stream.skipFrame(samples: 960)
        let resumed = stream.makeHeader(samples: 960)
        #expect(resumed.marker)
        #expect(resumed.sequenceNumber == 12)
        #expect(resumed.timestamp == 4 * 960)
        #expect(!stream.makeHeader(samples: 960).marker)
        #expect(OpusRTPPayload.isDiscontinuousTransmissionFrame(byteCount: 1))
        #expect(!OpusRTPPayload.isDiscontinuousTransmissionFrame(byteCount: 80))
    }

    @Test func countsSentBytes() {
        var stream = RTPOutgoingStream(ssrc: 1, payloadType: 111, initialSequenceNumber: 0, initialTimestamp: 0)
        stream.recordSent(headerBytes: 12, payloadBytes: 100)
        stream.recordSent(headerBytes: 20, payloadBytes: 90)
        #expect(stream.packetsSent == 2 && stream.headerBytesSent == 32 && stream.payloadBytesSent == 190)
    }
}

@Suite struct RTPReceiveStatisticsTests {
    /// Feeds sequence numbers (20 ms apart in both timestamp and arrival unless given) to fresh statistics.
    func feed(_ sequences: [UInt16], start: UInt16 = 0) -> (RTPReceiveStatistics, [RTPReceiveOutcome]) {
        var stats = RTPReceiveStatistics()
        var outcomes: [RTPReceiveOutcome] = []
        for s in sequences {
            let index = Int64(s &- start)
            outcomes.append(
                stats.record(
                    sequenceNumber: s, timestamp: UInt32(index) * 960, payloadBytes: 80, headerBytes: 12,
                    at: .milliseconds(index * 20)))
        }
        return (stats, outcomes)
    }

    @Test func probationThenInOrder() {
        let (stats, outcomes) = feed([100, 101, 102, 103])
        #expect(outcomes == [.probation, .inOrder, .inOrder, .inOrder])
        #expect(stats.packetsReceived == 3)
        #expect(stats.packetsExpected == 3)
        #expect(stats.packetsLost == 0)
        #expect(stats.extendedHighestSequence == 103)
        #expect(stats.jitter == 0)
    }

    @Test func lossAndFractionPerInterval() {
        var (stats, _) = feed([0, 1, 2, 4, 5, 7, 8, 9])  // 3 and 6 lost
        #expect(stats.packetsLost == 2)
        let block = stats.makeReportBlock(ssrc: 5, at: .seconds(1))
        #expect(block.cumulativeLost == 2)
        #expect(block.extendedHighestSequence == 9)
        // Of 1…7, judged (a sequence number once two newer ones passed it), 3 and 6 are missing.
        #expect(block.fractionLost == UInt8(2 * 256 / 7))
        let next = stats.makeReportBlock(ssrc: 5, at: .seconds(2))
        #expect(next.fractionLost == 0)
        #expect(next.cumulativeLost == 2)
    }

    @Test func wrapAroundExtendsTheSequence() {
        let (stats, outcomes) = feed([65534, 65535, 0, 1], start: 65534)
        #expect(outcomes == [.probation, .inOrder, .inOrder, .inOrder])
        #expect(stats.extendedHighestSequence == 0x1_0001)
        #expect(stats.packetsLost == 0)
    }

    @Test func duplicatesReorderedAndLate() {
        let (stats, outcomes) = feed([10, 11, 12, 14, 13, 13, 14, 300, 301, 50])
        #expect(outcomes[4] == .reordered)
        #expect(outcomes[5] == .duplicate)
        #expect(outcomes[6] == .duplicate)
        #expect(outcomes[7] == .inOrder)
        #expect(outcomes[9] == .discarded)
        #expect(stats.reordered == 1)
        #expect(stats.duplicates == 2)
        #expect(stats.late == 1)
        // Duplicates count as received (RFC 3550), so loss goes negative by their number minus real losses.
        #expect(stats.packetsLost == stats.packetsExpected - stats.packetsReceived)
        #expect(stats.packetsExpected == 301 - 11 + 1)
    }

    @Test func confirmedJumpRestarts() {
        let (stats, outcomes) = feed([1, 2, 3, 20000, 20001, 20002])
        #expect(outcomes == [.probation, .inOrder, .inOrder, .discarded, .restarted, .inOrder])
        #expect(stats.packetsExpected == 2)
        #expect(stats.packetsReceived == 2)
    }

    @Test func mediaTimeCountsTheSendersClockAcrossAWrapButNotReorderedPackets() {
        var stats = RTPReceiveStatistics()
        // 50 packets 20 ms apart whose timestamps wrap past 2^32 on the way; packet 30 arrives after 31.
        let base: UInt32 = 0xFFFF_0000
        var order = Array(0..<50)
        order.swapAt(30, 31)
        for i in order {
            _ = stats.record(
                sequenceNumber: UInt16(i), timestamp: base &+ UInt32(i) * 960, payloadBytes: 80, headerBytes: 12,
                at: .milliseconds(Int64(i) * 20))
        }
        // Packet 1 ends probation and starts the count; 31 adds two frames, the reordered 30 nothing.
        #expect(stats.mediaTimeReceived == 48 * 960)
        var inbound = InboundRTPStats()
        inbound.update(from: stats)
        #expect(abs(inbound.mediaSecondsReceived - 0.96) < 1e-12)
    }

    @Test func jitterFollowsRFC3550EstimatorInVirtualTime() {
        var stats = RTPReceiveStatistics()
        // Packets sent every 20 ms; arrival alternates 0 / +10 ms of extra delay.
        var expected = 0.0
        for i in 0..<40 {
            let extra: Int64 = i % 2 == 0 ? 0 : 10
            _ = stats.record(
                sequenceNumber: UInt16(i), timestamp: UInt32(i) * 960, payloadBytes: 80, headerBytes: 12,
                at: .milliseconds(Int64(i) * 20 + extra))
            if i >= 2 { expected += (480 - expected) / 16 }  // |D| = 10 ms = 480 units at 48 kHz
        }
        #expect(abs(Double(stats.jitter) - expected) <= 1)
        #expect(abs(stats.jitterSeconds - expected / 48_000) < 1e-4)
        #expect(stats.jitterSeconds > 0.005)
    }

    @Test func reportBlockCarriesLSRAndDLSR() {
        var (stats, _) = feed([0, 1, 2])
        let ntp = NTPTimestamp(value: 0x1234_5678_9ABC_DEF0)
        stats.recordSenderReport(ntpTimestamp: ntp, at: .seconds(10))
        let block = stats.makeReportBlock(ssrc: 9, at: .seconds(10.5))
        #expect(block.lastSenderReport == 0x5678_9ABC)
        #expect(block.delaySinceLastSenderReport == 32768)
    }
}
