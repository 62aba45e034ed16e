// The W3C webrtc-stats "outbound-rtp" and "remote-inbound-rtp" audio fields PolyVoice fills.

/// Sending statistics of the outgoing audio stream (W3C RTCOutboundRtpStreamStats).
public struct OutboundRTPStats: Sendable, Equatable, Codable {
    public var ssrc: UInt32?
    public var kind = "audio"
    public var packetsSent: UInt64 = 0
    /// Payload bytes sent (no RTP header, no padding).
    public var bytesSent: UInt64 = 0
    public var headerBytesSent: UInt64 = 0
    /// PolyVoice does not retransmit audio: always 0.
    public var retransmittedPacketsSent: UInt64 = 0

    public init(ssrc: UInt32? = nil) { self.ssrc = ssrc }

    /// Copies the counters of the outgoing stream.
    public mutating func update(from stream: RTPOutgoingStream) {
        ssrc = stream.ssrc
        packetsSent = stream.packetsSent
        bytesSent = stream.payloadBytesSent
        headerBytesSent = stream.headerBytesSent
    }
}

/// What the far end reports about our stream in RTCP (W3C RTCRemoteInboundRtpStreamStats).
public struct RemoteInboundRTPStats: Sendable, Equatable, Codable {
    /// Latest round-trip time in seconds.
    public var roundTripTime: Double?
    /// Fraction lost in the latest report, in [0, 1].
    public var fractionLost: Double?
    /// Cumulative packets lost as the far end counts them.
    public var packetsLost: Int64?
    /// Interarrival jitter the far end measures, in seconds.
    public var jitter: Double?
    /// Sum of all round-trip times measured, in seconds.
    public var totalRoundTripTime: Double = 0
    public var roundTripTimeMeasurements: UInt64 = 0

    public init() {}

    /// Takes in a report block about our stream, with the RTT it implies (if any).
    public mutating func record(_ block: RTCPReportBlock, roundTripTime rtt: Duration?, clockRate: Int = 48_000) {
        fractionLost = block.fractionLostRatio
        packetsLost = Int64(block.cumulativeLost)
        jitter = Double(block.jitter) / Double(clockRate)
        if let rtt {
            roundTripTime = rtt.inSeconds
            totalRoundTripTime += rtt.inSeconds
            roundTripTimeMeasurements += 1
        }
    }
}
