// The fraction lost a receiver report carries, on a path that reorders: a packet still on its way is not lost.
import PolyCore
import Testing

@testable import PolyMedia

@Suite struct ReportLossUnderReorderingTests {
    /// Receive statistics fed packets in the given order, one arriving every 20 ms.
    struct Receiver {
        var stats = RTPReceiveStatistics()
        var now = Instant.zero

        mutating func receive(_ sequences: [Int]) {
            for s in sequences {
                _ = stats.record(
                    sequenceNumber: UInt16(truncatingIfNeeded: s), timestamp: UInt32(truncatingIfNeeded: s * 960),
                    payloadBytes: 80, headerBytes: 12, at: now)
                now += .milliseconds(20)
            }
        }

        mutating func report() -> RTCPReportBlock { stats.makeReportBlock(ssrc: 1, at: now) }
    }

    @Test func aPacketStillOnItsWayAtReportTimeIsNotReportedLost() {
        var receiver = Receiver()
        receiver.receive(Array(0...20) + [22, 23, 24, 21])  // 21 comes three behind the newest
        #expect(receiver.report().fractionLost == 0)
        receiver.receive([25, 26, 28, 29])  // 27 is on its way, passed by two: within the depth seen
        #expect(receiver.stats.packetsLost == 1)  // RFC 3550's count: expected − received
        #expect(receiver.stats.packetsLostSinceReport == 0)
        #expect(receiver.report().fractionLost == 0)
        receiver.receive([27, 30])
        #expect(receiver.report().fractionLost == 0)
        #expect(receiver.stats.packetsLost == 0)
    }

    @Test func aMissingPacketPassedByMoreThanTwiceTheDepthIsLost() {
        var receiver = Receiver()
        receiver.receive(Array(0...20) + [22, 23, 21])  // depth 2
        _ = receiver.report()
        receiver.receive(Array(24...27))  // 28 will never come
        receiver.receive(Array(29...33))
        #expect(receiver.stats.packetsLostSinceReport == 0)  // passed by five so far
        receiver.receive([34])
        #expect(receiver.stats.packetsLostSinceReport == 1)
        // 1 missing (28) of the 7 judged since the report (22…28).
        let block = receiver.report()
        #expect(block.fractionLost == UInt8(256 / 7))
        #expect(block.cumulativeLost == 1)
    }

    @Test func aPacketLaterThanTheDepthIsNettedOutWhenItArrives() {
        var receiver = Receiver()
        receiver.receive(Array(0...30))
        _ = receiver.report()
        receiver.receive([32, 33, 34])  // no reordering seen yet: 31 is judged missing once two passed it
        #expect(receiver.stats.packetsLostSinceReport == 1)
        receiver.receive([31])
        #expect(receiver.stats.packetsLostSinceReport == 0)
        #expect(receiver.report().fractionLost == 0)
    }

    @Test func theDepthIsForgottenOnceReorderingStops() {
        var receiver = Receiver()
        receiver.receive(Array(0...20) + [25, 21, 22, 23, 24])  // depth 4
        receiver.receive(Array(26...40))
        _ = receiver.report()
        receiver.receive([42, 43])
        #expect(receiver.stats.packetsLostSinceReport == 0)  // 41 may still come
        receiver.receive(Array(44...600))  // over 10 s in order
        _ = receiver.report()
        receiver.receive([602, 603])
        #expect(receiver.stats.packetsLostSinceReport == 1)  // passed by two: no reordering to wait for
    }

    @Test func aLongJumpCountsWhatItSkippedAndNothingItReceived() {
        var receiver = Receiver()
        receiver.receive(Array(0...20) + [23, 21, 22])  // depth 2: 21 and 22 received, not yet all judged
        receiver.receive([1_000, 1_001])  // a jump longer than the window, short of a restart
        let block = receiver.report()
        #expect(receiver.stats.packetsLost == 976)  // 24…999
        #expect(block.cumulativeLost == 976)
        // Judged: 1…995 (the newest less twice the depth and two); missing: 24…995.
        #expect(block.fractionLost == UInt8(972 * 256 / 995))
    }

    @Test func onAReorderingPathWithoutLossReportsSayNoLossWhereRFC3550CountsPacketsInFlight() {
        var random = SeededRandom(seed: 5)
        var arrivals: [(sequence: Int, at: Double)] = []
        for s in 0..<3_000 {
            // 40 ms + normal jitter with σ 30 ms, never below zero: reorders by up to about five packets.
            arrivals.append((s, Double(s) * 0.020 + max(0, random.normal(mean: 0.040, standardDeviation: 0.030))))
        }
        arrivals.sort { $0.at < $1.at }
        var stats = RTPReceiveStatistics()
        var rfcPrior: (expected: Int64, received: Int64) = (0, 0)
        var (reports, rfcReportsWithLoss) = (0, 0)
        var nextReport = 1.0
        for arrival in arrivals {
            while arrival.at >= nextReport {
                let block = stats.makeReportBlock(ssrc: 1, at: .seconds(nextReport))
                #expect(block.fractionLost == 0, "report at \(nextReport) s")
                let expected = stats.packetsExpected - rfcPrior.expected
                let received = stats.packetsReceived - rfcPrior.received
                if expected > received { rfcReportsWithLoss += 1 }
                rfcPrior = (stats.packetsExpected, stats.packetsReceived)
                reports += 1
                nextReport += 0.97  // not a multiple of the packet interval
            }
            _ = stats.record(
                sequenceNumber: UInt16(arrival.sequence), timestamp: UInt32(arrival.sequence * 960), payloadBytes: 80,
                headerBytes: 12, at: .seconds(arrival.at))
        }
        #expect(reports > 50)
        #expect(rfcReportsWithLoss > reports / 10)  // the old count would have reported loss in these
        #expect(stats.packetsLost == 0)
    }
}

@Suite struct ReorderDepthTests {
    @Test func holdsTheLargestDisplacementForFiveToTenSeconds() {
        var depth = ReorderDepth()
        depth.note(displacement: 3, at: .seconds(1))
        depth.note(displacement: 1, at: .seconds(2))
        #expect(depth.depth(at: .seconds(5.9)) == 3)
        #expect(depth.depth(at: .seconds(10.9)) == 3)  // the period before
        #expect(depth.depth(at: .seconds(11.1)) == 0)
        depth.note(displacement: 2, at: .seconds(12))
        #expect(depth.depth(at: .seconds(30)) == 0)  // more than two periods without reordering
    }
}
