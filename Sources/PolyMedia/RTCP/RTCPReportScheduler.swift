// When to send the next RTCP report: RFC 3550 §6.2/§6.3 interval, simple form without reconsideration, and one
// early report between regular ones (RTP/AVPF, RFC 4585 §3.5, immediate mode: two parties, no dither).
import PolyCore

/// Schedules RTCP reports from the caller's clock (sans-IO).
///
/// Interval (RFC 3550 A.7 without timer reconsideration): the session's RTCP bandwidth (5 % of the
/// session bandwidth, a quarter of it for senders when they are at most a quarter of the members)
/// divided among members, at least the minimum interval (halved for the first report), multiplied by
/// a uniform random factor in [0.5, 1.5] and divided by e − 3/2 to compensate the randomisation.
public struct RTCPReportScheduler: Sendable {
    /// Session bandwidth in bits per second (e.g. 64 000 for Opus voice with overhead).
    public var sessionBandwidth: Double
    public var members: Int
    public var senders: Int
    /// Whether we sent RTP since the last report (a sender).
    public var weSent: Bool
    /// Minimum interval; RFC 3550 recommends 5 s (half of it before the first report).
    public var minimumInterval: Duration
    /// Moving average of RTCP packet sizes in octets, including UDP and IP headers (RFC 3550 §6.3.3).
    public private(set) var averagePacketSize: Double
    /// When the next report is due.
    public private(set) var nextReport: Instant
    private var initial = true
    /// Whether an early report may be sent now: once after each regular report (RFC 4585 `allow_early`).
    private var allowEarly = true
    private var earlyPending = false
    private var random: SeededRandom

    public init(
        sessionBandwidth: Double = 64_000, members: Int = 2, senders: Int = 2, weSent: Bool = true,
        minimumInterval: Duration = .seconds(5), expectedPacketSize: Int = 100, random: SeededRandom, start: Instant
    ) {
        self.sessionBandwidth = sessionBandwidth
        self.members = members
        self.senders = senders
        self.weSent = weSent
        self.minimumInterval = minimumInterval
        self.averagePacketSize = Double(expectedPacketSize + Self.udpIPOverhead)
        self.random = random
        self.nextReport = start
        self.nextReport = start + nextInterval()
    }

    /// IPv4 + UDP header octets counted in the average packet size.
    static let udpIPOverhead = 28

    /// The interval before randomisation (RFC 3550 A.7 `rtcp_interval` with the factor left out).
    public func deterministicInterval() -> Duration {
        let minimum = initial ? minimumInterval.inSeconds / 2 : minimumInterval.inSeconds
        var bandwidth = sessionBandwidth / 8 * 0.05
        var n = Double(max(members, 1))
        if Double(senders) <= Double(members) * 0.25 {
            if weSent {
                bandwidth *= 0.25
                n = Double(max(senders, 1))
            } else {
                bandwidth *= 0.75
                n = Double(max(members - senders, 1))
            }
        }
        let interval = bandwidth > 0 ? max(averagePacketSize * n / bandwidth, minimum) : minimum
        return .nanoseconds(Int64(interval * 1e9))
    }

    /// The deadline of the next report (the shell arms its timer with it).
    public func nextDeadline() -> Instant { nextReport }

    /// Whether a report is due at `now`.
    public func isDue(at now: Instant) -> Bool { now >= nextReport }

    /// Asks for a report at `time`, ahead of the regular one (an event the sender should hear about at once, such
    /// as the first loss after a clean stretch). Granted once between regular reports; returns whether it was.
    public mutating func requestEarlyReport(at time: Instant) -> Bool {
        guard allowEarly else { return false }
        allowEarly = false
        earlyPending = true
        nextReport = min(nextReport, time)
        return true
    }

    /// Records a report of `packetSize` octets (RTCP only) sent at `now`, and schedules the next. After an early
    /// report the next regular one waits two intervals, so the average rate stays what RFC 3550 allows.
    public mutating func didSend(packetSize: Int, at now: Instant) {
        updateAverage(packetSize)
        initial = false
        if earlyPending {
            earlyPending = false
            nextReport = now + nextInterval() + nextInterval()
        } else {
            allowEarly = true
            nextReport = now + nextInterval()
        }
    }

    /// Records a received RTCP packet of `packetSize` octets for the average size.
    public mutating func didReceive(packetSize: Int) { updateAverage(packetSize) }

    private mutating func updateAverage(_ packetSize: Int) {
        averagePacketSize += (Double(packetSize + Self.udpIPOverhead) - averagePacketSize) / 16
    }

    private mutating func nextInterval() -> Duration {
        let factor = (random.unit() + 0.5) / (2.718_281_828_459_045 - 1.5)
        return .nanoseconds(Int64(Double(deterministicInterval().totalNanoseconds) * factor))
    }
}
