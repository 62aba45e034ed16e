// Why SRTP refused a packet. Refused packets are counted and never delivered.

/// An SRTP/SRTCP processing failure.
public enum SRTPError: Error, Equatable, Sendable {
    /// The authentication tag did not verify (tampered, wrong key, or not SRTP).
    case authenticationFailed
    /// The packet index was already seen or is older than the replay window.
    case replayed
    /// The caller's buffer cannot hold the packet plus the trailer `protect` appends.
    case bufferTooSmall(needed: Int, available: Int)
    /// libsrtp needs the packet to start on a 4-byte boundary.
    case misalignedBuffer
    /// libsrtp could not be initialised or a context could not be created.
    case setupFailed(code: Int32)
    /// Any other libsrtp error (malformed header, bad length, …).
    case other(code: Int32)
}

/// Counters of one `SRTPSession`.
public struct SRTPStats: Sendable, Equatable, Codable {
    public var rtpProtected: UInt64 = 0
    public var rtpUnprotected: UInt64 = 0
    public var rtcpProtected: UInt64 = 0
    public var rtcpUnprotected: UInt64 = 0
    /// Inbound packets (RTP and RTCP) dropped because authentication failed.
    public var authenticationFailures: UInt64 = 0
    /// Inbound packets dropped as replays.
    public var replayFailures: UInt64 = 0
    /// Packets refused for any other reason (either direction).
    public var otherFailures: UInt64 = 0

    public init() {}
}
