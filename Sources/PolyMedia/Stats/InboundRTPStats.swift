// The W3C webrtc-stats "inbound-rtp" audio fields PolyVoice can fill (names match the spec).

/// Reception statistics of the incoming audio stream (W3C webrtc-stats RTCInboundRtpStreamStats).
///
/// Units follow the spec: seconds for jitter and delays, milliseconds since the Unix epoch for
/// `lastPacketReceivedTimestamp`, audio level in [0, 1]. The jitter-buffer and concealment fields
/// are filled by the playout layer.
public struct InboundRTPStats: Sendable, Equatable, Codable {
    public var ssrc: UInt32?
    public var kind = "audio"
    public var packetsReceived: UInt64 = 0
    /// Expected minus received; negative with duplicates (as RFC 3550 and the spec allow).
    public var packetsLost: Int64 = 0
    /// Interarrival jitter in seconds.
    public var jitter: Double = 0
    /// Payload bytes (no RTP header, no padding).
    public var bytesReceived: UInt64 = 0
    /// RTP header and padding bytes.
    public var headerBytesReceived: UInt64 = 0
    /// Packets dropped by the jitter buffer as late or duplicate.
    public var packetsDiscarded: UInt64 = 0
    public var fecPacketsReceived: UInt64 = 0
    public var fecPacketsDiscarded: UInt64 = 0
    public var lastPacketReceivedTimestamp: Double?
    /// Sum over emitted samples of their time in the jitter buffer, in seconds.
    public var jitterBufferDelay: Double = 0
    public var jitterBufferTargetDelay: Double = 0
    public var jitterBufferMinimumDelay: Double = 0
    public var jitterBufferEmittedCount: UInt64 = 0
    public var totalSamplesReceived: UInt64 = 0
    public var concealedSamples: UInt64 = 0
    public var silentConcealedSamples: UInt64 = 0
    public var concealmentEvents: UInt64 = 0
    public var insertedSamplesForDeceleration: UInt64 = 0
    public var removedSamplesForAcceleration: UInt64 = 0
    public var audioLevel: Double?
    public var totalAudioEnergy: Double = 0
    public var totalSamplesDuration: Double = 0
    /// Not a W3C field: seconds of the sender's RTP clock the in-order packets advanced by (see
    /// `RTPReceiveStatistics.mediaTimeReceived`), to compare with `totalSamplesDuration` (clock drift).
    public var mediaSecondsReceived: Double = 0
    /// Not a W3C field: what the jitter buffer's target delay is made of now, and the playout delay it is
    /// compared with (nil before the stream started).
    public var targetDelayParts: TargetDelayParts?

    public init(ssrc: UInt32? = nil) { self.ssrc = ssrc }

    /// Copies the RTP-level figures (packets, loss, jitter, bytes) from the receive statistics.
    /// `unixTimeOfLastPacket` (ms since the Unix epoch) is the shell's wall-clock mapping of the last arrival.
    public mutating func update(from statistics: RTPReceiveStatistics, unixTimeOfLastPacket: Double? = nil) {
        packetsReceived = UInt64(max(0, statistics.packetsReceived))
        packetsLost = statistics.packetsLost
        jitter = statistics.jitterSeconds
        bytesReceived = UInt64(max(0, statistics.payloadBytesReceived))
        headerBytesReceived = UInt64(max(0, statistics.headerBytesReceived))
        if let unixTimeOfLastPacket { lastPacketReceivedTimestamp = unixTimeOfLastPacket }
        mediaSecondsReceived = Double(statistics.mediaTimeReceived) / Double(statistics.clockRate)
    }
}
