// The reception report block shared by SR and RR (RFC 3550 §6.4.1).

/// One reception report about a source.
public struct RTCPReportBlock: Sendable, Equatable {
    public var ssrc: UInt32
    /// Fraction lost since the previous report, in 1/256.
    public var fractionLost: UInt8
    /// Cumulative packets lost, 24-bit signed on the wire (clamped when written).
    public var cumulativeLost: Int32
    public var extendedHighestSequence: UInt32
    /// Interarrival jitter in RTP timestamp units.
    public var jitter: UInt32
    /// Middle 32 bits of the NTP timestamp of the last SR received from the source (0: none).
    public var lastSenderReport: UInt32
    /// Delay since that SR was received, in 1/65536 s.
    public var delaySinceLastSenderReport: UInt32

    public init(
        ssrc: UInt32, fractionLost: UInt8, cumulativeLost: Int32, extendedHighestSequence: UInt32, jitter: UInt32,
        lastSenderReport: UInt32, delaySinceLastSenderReport: UInt32
    ) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequence = extendedHighestSequence
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    /// Fraction lost as a value in [0, 1).
    public var fractionLostRatio: Double { Double(fractionLost) / 256 }

    static let wireCount = 24
}
