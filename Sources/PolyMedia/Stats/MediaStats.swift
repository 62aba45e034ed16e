// One snapshot of a call's media statistics, for `--json` output and quality checks.

/// The media statistics of one audio call: a `Sendable` value each layer fills its part of.
///
/// Encoded with the W3C webrtc-stats member names (`inboundRtp.packetsReceived`, …).
public struct MediaStats: Sendable, Equatable, Codable {
    public var inboundRtp = InboundRTPStats()
    public var outboundRtp = OutboundRTPStats()
    public var remoteInboundRtp = RemoteInboundRTPStats()
    /// SRTP counters, including authentication and replay failures (dropped, never delivered).
    public var srtp = SRTPStats()
    /// The selected candidate pair, once ICE chose one.
    public var selectedCandidatePair: CandidatePairStats?

    public init() {}

    /// Inbound SRTP packets that failed authentication.
    public var srtpAuthenticationFailures: UInt64 { srtp.authenticationFailures }
    /// Inbound SRTP packets rejected as replays.
    public var srtpReplayFailures: UInt64 { srtp.replayFailures }
}
