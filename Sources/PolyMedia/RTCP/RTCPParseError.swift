// Why an RTCP datagram was refused.

/// A malformed RTCP datagram (RFC 3550 §6, RFC 5506). Parsing never traps.
public enum RTCPParseError: Error, Equatable, Sendable {
    /// Fewer than 4 bytes where a packet header should start, or an empty datagram.
    case truncatedHeader(offset: Int)
    /// The version field is not 2.
    case unsupportedVersion(UInt8)
    /// The length field runs past the end of the datagram.
    case lengthExceedsDatagram(packetType: UInt8, offset: Int)
    /// The packet body is shorter than its fixed fields and announced report/source count.
    case bodyTruncated(packetType: UInt8)
    /// The padding bit is set but the padding count is zero or exceeds the packet.
    case invalidPadding(packetType: UInt8)
}
