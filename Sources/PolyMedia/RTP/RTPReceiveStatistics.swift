// Reception statistics of one incoming RTP source, after RFC 3550 appendix A.1, A.3 and A.8.
import PolyCore

/// What `RTPReceiveStatistics.record` made of a packet.
public enum RTPReceiveOutcome: Sendable, Equatable {
    /// The newest packet so far (in order, possibly after a gap).
    case inOrder
    /// Older than the newest but not seen before (arrived out of order): still worth playing.
    case reordered
    /// Already received: drop it.
    case duplicate
    /// The source is still on probation (RFC 3550 A.1: 2 sequential packets needed): not counted.
    case probation
    /// Too far behind the newest (late) or a jump not yet confirmed by its successor: not counted.
    case discarded
    /// A confirmed jump: the source restarted its sequence; statistics start afresh.
    case restarted

    /// Whether the packet should be passed on to the jitter buffer.
    public var isDeliverable: Bool { self == .inOrder || self == .reordered || self == .restarted }
}

/// Sequence tracking, loss and interarrival jitter for one SSRC (RFC 3550 appendix A).
///
/// Sans-IO: the caller passes each packet's arrival `Instant`. Only the per-stream window of seen
/// sequence numbers is allocated, once, at initialisation.
public struct RTPReceiveStatistics: Sendable {
    static let minSequential = 2
    static let maxDropout: UInt16 = 3000
    static let maxMisorder: UInt16 = 100
    /// Sequence numbers remembered for duplicate detection.
    static let windowSize = 1024

    public let clockRate: Int
    private var probation = minSequential
    private var started = false
    private var maxSequence: UInt16 = 0
    private var cycles: UInt32 = 0
    private var baseSequence: UInt32 = 0
    private var badSequence: UInt32 = 0x1_0000 + 1
    /// Report loss (see `makeReportBlock`): sequence numbers up to `settledThrough` (extended) have been judged,
    /// `settledLost` of the `settledExpected` judged were missing; the priors close each report's interval.
    private var settledThrough: Int64 = 0
    private var settledExpected: Int64 = 0
    private var settledLost: Int64 = 0
    private var settledExpectedPrior: Int64 = 0
    private var settledLostPrior: Int64 = 0
    private var reorderDepth = ReorderDepth()
    private var seen: [UInt64]
    private var lastArrival: Instant?
    private var lastTimestamp: UInt32 = 0
    /// RFC 3550 A.8 jitter estimate in timestamp units (fractional).
    private var jitterEstimate: Double = 0
    private var lastSenderReport: (ntpMiddle: UInt32, receivedAt: Instant)?

    /// Packets counted as received (RFC 3550: includes duplicates and reordered packets).
    public private(set) var packetsReceived: Int64 = 0
    public private(set) var duplicates: Int64 = 0
    public private(set) var reordered: Int64 = 0
    /// Packets too far behind the newest to be counted (RFC 3550 A.1 "bad" old packets).
    public private(set) var late: Int64 = 0
    /// Packets not counted: probation, late, unconfirmed jumps.
    public private(set) var discarded: Int64 = 0
    /// Payload bytes (without header and padding) and header+padding bytes of counted packets.
    public private(set) var payloadBytesReceived: Int64 = 0
    public private(set) var headerBytesReceived: Int64 = 0
    public private(set) var lastPacketReceived: Instant?
    /// RTP time the in-order packets advanced by since the first (timestamp units; not across a restart): the
    /// sender's media clock as the receiver saw it, to set against its own audio clock (drift).
    public private(set) var mediaTimeReceived: Int64 = 0

    public init(clockRate: Int = Int(OpusRTPPayload.clockRate)) {
        self.clockRate = clockRate
        seen = [UInt64](repeating: 0, count: Self.windowSize / 64)
    }

    /// Counts one arriving packet and classifies it.
    public mutating func record(
        sequenceNumber: UInt16, timestamp: UInt32, payloadBytes: Int, headerBytes: Int, at arrival: Instant
    ) -> RTPReceiveOutcome {
        let outcome = updateSequence(sequenceNumber)
        switch outcome {
        case .probation, .discarded:
            discarded += 1
            return outcome
        case .duplicate: duplicates += 1
        case .reordered:
            reordered += 1
            let displacement = Int(maxSequence &- sequenceNumber)
            reorderDepth.note(displacement: displacement, at: arrival)
            // Already judged missing: it was late, not lost (as RFC 3550 nets a reordered packet out).
            if Int64(extendedHighestSequence) - Int64(displacement) <= settledThrough { settledLost -= 1 }
        case .inOrder:
            if lastArrival != nil { mediaTimeReceived += Int64(max(0, Int32(bitPattern: timestamp &- lastTimestamp))) }
            updateJitter(timestamp: timestamp, arrival: arrival)
        case .restarted: updateJitter(timestamp: timestamp, arrival: arrival)
        }
        // A packet that came `depth` behind the newest was passed by that many. Judge one passed by more than
        // twice that (and by two at least): reordering grows at its onset, and a packet judged lost that then
        // arrives costs a report that says loss.
        settle(through: Int64(extendedHighestSequence) - 2 * Int64(reorderDepth.depth(at: arrival)) - 2)
        packetsReceived += 1
        payloadBytesReceived += Int64(payloadBytes)
        headerBytesReceived += Int64(headerBytes)
        lastPacketReceived = arrival
        return outcome
    }

    // MARK: - RFC 3550 A.1

    private mutating func updateSequence(_ sequence: UInt16) -> RTPReceiveOutcome {
        if !started {
            started = true
            restart(at: sequence)
            maxSequence = sequence &- 1
            probation = Self.minSequential
        }
        let delta = sequence &- maxSequence
        if probation > 0 {
            if sequence == maxSequence &+ 1 {
                probation -= 1
                maxSequence = sequence
                if probation == 0 {
                    restart(at: sequence)
                    return .inOrder
                }
            } else {
                probation = Self.minSequential - 1
                maxSequence = sequence
            }
            return .probation
        }
        if delta < Self.maxDropout {
            if delta == 0 { return .duplicate }
            // A jump this long clears window bits of sequence numbers not yet judged: judge them first.
            if Int(delta) > Self.windowSize - Int(Self.maxMisorder) { settle(through: Int64(extendedHighestSequence)) }
            if sequence < maxSequence { cycles &+= 0x1_0000 }
            advanceWindow(from: maxSequence, by: delta)
            maxSequence = sequence
            markSeen(sequence)
            return .inOrder
        }
        if delta <= UInt16.max - Self.maxMisorder + 1 {
            if UInt32(sequence) == badSequence {
                restart(at: sequence)
                return .restarted
            }
            badSequence = UInt32(sequence &+ 1)
            if Int16(bitPattern: delta) < 0 { late += 1 }
            return .discarded
        }
        if isSeen(sequence) { return .duplicate }
        markSeen(sequence)
        return .reordered
    }

    private mutating func restart(at sequence: UInt16) {
        baseSequence = UInt32(sequence)
        maxSequence = sequence
        badSequence = 0x1_0000 + 1
        cycles = 0
        packetsReceived = 0
        settledThrough = Int64(sequence) - 1
        (settledExpected, settledLost, settledExpectedPrior, settledLostPrior) = (0, 0, 0, 0)
        for i in seen.indices { seen[i] = 0 }
        markSeen(sequence)
        lastArrival = nil
    }

    private mutating func advanceWindow(from old: UInt16, by delta: UInt16) {
        let steps = min(Int(delta), Self.windowSize)
        for step in 1...steps { clearSeen(old &+ UInt16(truncatingIfNeeded: step)) }
    }

    private func isSeen(_ s: UInt16) -> Bool {
        let bit = Int(s) % Self.windowSize
        return seen[bit / 64] & (1 << UInt64(bit % 64)) != 0
    }

    private mutating func markSeen(_ s: UInt16) {
        let bit = Int(s) % Self.windowSize
        seen[bit / 64] |= 1 << UInt64(bit % 64)
    }

    private mutating func clearSeen(_ s: UInt16) {
        let bit = Int(s) % Self.windowSize
        seen[bit / 64] &= ~(1 << UInt64(bit % 64))
    }

    // MARK: - Loss for reports, judged once reordering had time to fill a gap

    /// Judges each sequence number up to `target`: one not seen by now is counted missing. The reordered ones
    /// are accepted only up to `maxMisorder` behind the newest, so one older than the window can never arrive.
    private mutating func settle(through target: Int64) {
        guard started, probation == 0 else { return }
        let newest = Int64(extendedHighestSequence)
        while settledThrough < min(target, newest) {
            settledThrough += 1
            settledExpected += 1
            let sequence = UInt16(truncatingIfNeeded: settledThrough)
            if newest - settledThrough >= Int64(Self.windowSize) || !isSeen(sequence) { settledLost += 1 }
        }
    }

    // MARK: - RFC 3550 A.8 (in-order packets only, so reordering does not inflate it)

    private mutating func updateJitter(timestamp: UInt32, arrival: Instant) {
        defer {
            lastArrival = arrival
            lastTimestamp = timestamp
        }
        guard let lastArrival else { return }
        let arrivalUnits = (arrival - lastArrival).inSeconds * Double(clockRate)
        let sendUnits = Double(Int32(bitPattern: timestamp &- lastTimestamp))
        jitterEstimate += (abs(arrivalUnits - sendUnits) - jitterEstimate) / 16
    }

    // MARK: - Derived figures

    /// Highest sequence number received, extended with the count of wrap-arounds.
    public var extendedHighestSequence: UInt32 { cycles &+ UInt32(maxSequence) }

    /// Packets expected from the first to the highest sequence number seen.
    public var packetsExpected: Int64 {
        guard started, probation == 0 else { return 0 }
        return Int64(extendedHighestSequence) - Int64(baseSequence) + 1
    }

    /// Cumulative packets lost (negative when duplicates outnumber losses, as RFC 3550 allows).
    public var packetsLost: Int64 { packetsExpected - packetsReceived }

    /// Packets missing since the last report block (the interval `makeReportBlock` will close), counting a
    /// sequence number only once reordering could no longer fill it (`settle`, `ReorderDepth`).
    public var packetsLostSinceReport: Int64 { settledLost - settledLostPrior }

    /// Interarrival jitter in RTP timestamp units.
    public var jitter: UInt32 { UInt32(jitterEstimate.rounded(.down)) }

    /// Interarrival jitter in seconds.
    public var jitterSeconds: Double { jitterEstimate / Double(clockRate) }

    /// Notes a sender report from this source, for LSR/DLSR in the next report block.
    public mutating func recordSenderReport(ntpTimestamp: NTPTimestamp, at now: Instant) {
        lastSenderReport = (ntpTimestamp.middle32, now)
    }

    /// The report block about this source, closing the current loss interval (RFC 3550 A.3).
    ///
    /// The fraction lost counts the sequence numbers judged since the last report (`settle`), not RFC 3550's
    /// expected − received of the interval: under reordering that one counts every packet still on its way at
    /// report time as lost and, clamped at zero, never nets it out; an early report, whose interval may hold a
    /// handful of packets, makes one packet in flight a large fraction. On a path that only reorders (40 ms + σ 30
    /// ms) that held a report-driven sender's loss hint at 4–5 %: FEC and its extra bits for nothing. The
    /// cumulative count stays RFC 3550's.
    public mutating func makeReportBlock(ssrc: UInt32, at now: Instant) -> RTCPReportBlock {
        let expectedInterval = settledExpected - settledExpectedPrior
        let lostInterval = settledLost - settledLostPrior
        (settledExpectedPrior, settledLostPrior) = (settledExpected, settledLost)
        let fraction =
            expectedInterval == 0 || lostInterval <= 0 ? 0 : UInt8(min(255, (lostInterval << 8) / expectedInterval))
        var lsr: UInt32 = 0
        var dlsr: UInt32 = 0
        if let report = lastSenderReport {
            lsr = report.ntpMiddle
            dlsr = UInt32(clamping: max(0, (now - report.receivedAt).totalNanoseconds) * 65536 / 1_000_000_000)
        }
        return RTCPReportBlock(
            ssrc: ssrc, fractionLost: fraction, cumulativeLost: Int32(clamping: packetsLost),
            extendedHighestSequence: extendedHighestSequence, jitter: jitter,
            lastSenderReport: lsr, delaySinceLastSenderReport: dlsr)
    }
}
