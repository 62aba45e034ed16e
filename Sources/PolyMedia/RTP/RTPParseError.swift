// Why an RTP datagram was refused: one case per way the header can be malformed.

/// A malformed or truncated RTP packet (RFC 3550 §5.1, RFC 8285). Parsing never traps.
public enum RTPParseError: Error, Equatable, Sendable {
    /// Shorter than the 12-byte fixed header.
    case shorterThanFixedHeader(length: Int)
    /// The version field is not 2.
    case unsupportedVersion(UInt8)
    /// The CSRC count announces more identifiers than the datagram holds.
    case csrcListTruncated(count: Int)
    /// The extension bit is set but the 4-byte extension header or its announced data is missing.
    case headerExtensionTruncated
    /// The padding bit is set but the last byte announces zero or more padding than there is payload.
    case invalidPadding(count: Int)
    /// An RFC 8285 element announces more data than its extension block holds.
    case headerExtensionElementTruncated(id: UInt8)
}
