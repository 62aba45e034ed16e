// Why a datagram was refused as a STUN message: typed, so callers can count and ignore bad input.

/// A malformed or unauthentic STUN message.
public enum STUNError: Error, Equatable, Sendable {
    /// Shorter than the 20-byte header, or the header's length disagrees with the datagram.
    case truncated
    /// The first two bits were not zero (RFC 8489 §5): not a STUN message.
    case notSTUN
    case badMagicCookie
    /// The message length is not a multiple of 4.
    case badLength
    /// An attribute's length runs past the end of the message.
    case attributeOverrun(type: UInt16)
    /// A known attribute had an impossible value (wrong size, bad family, bad UTF-8, ...).
    case malformedAttribute(type: UInt16)
    /// FINGERPRINT was present but not last, or its CRC did not match.
    case badFingerprint
    /// MESSAGE-INTEGRITY was missing where required, or its HMAC did not match.
    case badIntegrity
}
