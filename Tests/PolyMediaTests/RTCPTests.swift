import PolyCore
import Testing

@testable import PolyMedia

@Suite struct RTCPTests {
    let block = RTCPReportBlock(
        ssrc: 0x0102_0304, fractionLost: 25, cumulativeLost: -3, extendedHighestSequence: 0x1_0005, jitter: 120,
        lastSenderReport: 0xAABB_CCDD, delaySinceLastSenderReport: 65536)

    @Test func compoundRoundTrip() throws {
        let packets: [RTCPPacket] = [
            .senderReport(
                RTCPSenderReport(
                    ssrc: 7, ntpTimestamp: NTPTimestamp(value: 0x0102_0304_0506_0708), rtpTimestamp: 960,
                    packetCount: 50, octetCount: 4000, reports: [block])),
            .sourceDescription(RTCPSourceDescription(ssrc: 7, cname: "polyvoice@host")),
            .goodbye(RTCPGoodbye(ssrcs: [7], reason: "done")),
        ]
        let bytes = RTCPCompound.serialize(packets)
        #expect(bytes.count % 4 == 0)
        #expect(bytes[0] == 0x81 && bytes[1] == 200)
        #expect(bytes[2] == 0 && bytes[3] == 12)  // 28 + 24 bytes → 13 words − 1
        let parsed = try RTCPCompound.parse(bytes)
        #expect(parsed == packets)
        guard case .sourceDescription(let sdes) = parsed[1] else {
            Issue.record("expected SDES")
            return
        }
        #expect(sdes.chunks.first?.cname == "polyvoice@host")
    }

    @Test func receiverReportAndNegativeLossSignExtends() throws {
        let bytes = RTCPCompound.serialize([.receiverReport(RTCPReceiverReport(ssrc: 1, reports: [block]))])
        #expect(bytes.count == 32)
        #expect(Array(bytes[12...15]) == [25, 0xFF, 0xFF, 0xFD])
        #expect(try RTCPCompound.parse(bytes) == [.receiverReport(RTCPReceiverReport(ssrc: 1, reports: [block]))])
    }

    @Test func lossIsClampedTo24Bits() throws {
        var big = block
        big.cumulativeLost = 10_000_000
        let bytes = RTCPCompound.serialize([.receiverReport(RTCPReceiverReport(ssrc: 1, reports: [big]))])
        guard case .receiverReport(let rr) = try RTCPCompound.parse(bytes).first else {
            Issue.record("expected RR")
            return
        }
        #expect(rr.reports.first?.cumulativeLost == 0x7F_FFFF)
    }

    @Test func reducedSizeSkipsUnknownAndAcceptsPadding() throws {
        // A lone transport-wide feedback packet (PT 205, unknown to us), then a padded BYE.
        let feedback: [UInt8] = [0x8F, 205, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2]
        let bye: [UInt8] = [0xA1, 203, 0, 2, 0, 0, 0, 9, 0, 0, 0, 4]
        let parsed = try RTCPCompound.parse(feedback + bye)
        #expect(parsed == [.goodbye(RTCPGoodbye(ssrcs: [9]))])
        #expect(try RTCPCompound.parse(feedback).isEmpty)
    }

    @Test func malformedDatagramsThrowTypedErrors() {
        #expect(throws: RTCPParseError.truncatedHeader(offset: 0)) { try RTCPCompound.parse([UInt8]()) }
        #expect(throws: RTCPParseError.truncatedHeader(offset: 0)) { try RTCPCompound.parse([0x80, 200]) }
        #expect(throws: RTCPParseError.unsupportedVersion(1)) { try RTCPCompound.parse([0x40, 200, 0, 0]) }
        #expect(throws: RTCPParseError.lengthExceedsDatagram(packetType: 201, offset: 0)) {
            try RTCPCompound.parse([0x80, 201, 0, 5, 0, 0, 0, 1])
        }
        // RR announcing one report block but carrying none.
        #expect(throws: RTCPParseError.bodyTruncated(packetType: 201)) {
            try RTCPCompound.parse([0x81, 201, 0, 1, 0, 0, 0, 1])
        }
        #expect(throws: RTCPParseError.invalidPadding(packetType: 203)) {
            try RTCPCompound.parse([0xA1, 203, 0, 1, 0, 0, 0, 9])
        }
        // SDES item running past the chunk.
        #expect(throws: RTCPParseError.bodyTruncated(packetType: 202)) {
            try RTCPCompound.parse([0x81, 202, 0, 2, 0, 0, 0, 1, 1, 9, 0x61, 0x62])
        }
    }

    @Test func roundTripTimeFromLSRAndDLSR() throws {
        // Our SR left at t = 100 s; the peer held it 0.25 s; its RR arrives at 100.75 s → RTT 0.5 s.
        let sent = NTPTimestamp(instant: .seconds(100))
        var rr = block
        rr.lastSenderReport = sent.middle32
        rr.delaySinceLastSenderReport = 65536 / 4
        let rtt = try #require(rr.roundTripTime(arrival: NTPTimestamp(instant: .seconds(100.75))))
        #expect(abs(rtt.inSeconds - 0.5) < 0.0001)
        rr.lastSenderReport = 0
        #expect(rr.roundTripTime(arrival: NTPTimestamp(instant: .seconds(100.75))) == nil)
    }

    @Test func ntpTimestampConversions() {
        let ntp = NTPTimestamp(seconds: 1.5)
        #expect(ntp.value == 0x1_8000_0000)
        #expect(ntp.middle32 == 0x0001_8000)
        #expect(NTPTimestamp(instant: .milliseconds(1500)).value == ntp.value)
        #expect(abs(NTPTimestamp(unixSeconds: 0).seconds - NTPTimestamp.unixEpochOffset) < 1e-6)
    }

    @Test func schedulerIntervalRandomisedWithinBounds() {
        var scheduler = RTCPReportScheduler(random: SeededRandom(seed: 3), start: .zero)
        // Two-party voice: the 5 s minimum dominates (half of it before the first report).
        #expect(scheduler.deterministicInterval() == .seconds(2.5))
        let first = scheduler.nextDeadline()
        #expect(first.seconds >= 2.5 * 0.5 / 1.21828 && first.seconds <= 2.5 * 1.5 / 1.21828)
        #expect(!scheduler.isDue(at: first - .milliseconds(1)))
        #expect(scheduler.isDue(at: first))
        var intervals: [Double] = []
        var now = first
        for _ in 0..<200 {
            scheduler.didSend(packetSize: 80, at: now)
            intervals.append((scheduler.nextDeadline() - now).inSeconds)
            now = scheduler.nextDeadline()
        }
        let low = 5 * 0.5 / 1.21828
        let high = 5 * 1.5 / 1.21828
        #expect(intervals.allSatisfy { $0 >= low && $0 <= high })
        let mean = intervals.reduce(0, +) / Double(intervals.count)
        #expect(abs(mean - 5 / 1.21828) < 0.3)
        #expect(Set(intervals.map { Int($0 * 10) }).count > 10)  // actually randomised
    }

    /// RTP/AVPF early reports: one between regular reports, sent at once, and the regular one after it two
    /// intervals later so the average rate does not rise.
    @Test func schedulerGrantsOneEarlyReportBetweenRegularOnes() {
        var scheduler = RTCPReportScheduler(
            minimumInterval: .seconds(1), random: SeededRandom(seed: 5), start: .zero)
        scheduler.didSend(packetSize: 80, at: scheduler.nextDeadline())
        let regular = scheduler.nextDeadline()
        let event = regular - .milliseconds(300)
        let granted = scheduler.requestEarlyReport(at: event)
        #expect(granted)
        #expect(scheduler.nextDeadline() == event && scheduler.isDue(at: event))
        let second = scheduler.requestEarlyReport(at: event + .milliseconds(1))
        #expect(!second)  // one per regular interval
        scheduler.didSend(packetSize: 80, at: event)
        let low = 0.5 / 1.21828
        #expect((scheduler.nextDeadline() - event).inSeconds >= 2 * low)
        let afterEarly = scheduler.requestEarlyReport(at: event + .milliseconds(100))
        #expect(!afterEarly)  // not until a regular report
        let next = scheduler.nextDeadline()
        scheduler.didSend(packetSize: 80, at: next)
        let afterRegular = scheduler.requestEarlyReport(at: next + .milliseconds(50))
        #expect(afterRegular)
        // An early request never postpones a report that is due sooner.
        var due = RTCPReportScheduler(minimumInterval: .seconds(1), random: SeededRandom(seed: 6), start: .zero)
        let deadline = due.nextDeadline()
        let late = due.requestEarlyReport(at: deadline + .milliseconds(10))
        #expect(late)
        #expect(due.nextDeadline() == deadline)
    }

    @Test func schedulerScalesWithMembersAndBandwidth() {
        var scheduler = RTCPReportScheduler(
            sessionBandwidth: 64_000, members: 1000, senders: 1000, random: SeededRandom(seed: 1), start: .zero)
        scheduler.didSend(packetSize: 100, at: .zero)
        // 1000 members × 128 octets / (400 octets/s) = 320 s.
        #expect(abs(scheduler.deterministicInterval().inSeconds - 320) < 1)
    }
}
