// Why a DTLS endpoint refused input or failed; texts never carry key material.

/// A DTLS failure or a refused datagram.
public enum DTLSError: Error, Equatable, Sendable {
    /// The peer's certificate does not match any `a=fingerprint` from its SDP: the call is refused.
    case fingerprintMismatch
    /// The datagram is not a sequence of well-formed DTLS records; it was dropped, the session is unaffected.
    case malformedDatagram(String)
    /// OpenSSL aborted the handshake or the session (the text is OpenSSL's error string).
    case handshakeFailed(String)
    /// The peer never completed the handshake within the retransmission budget.
    case timedOut
    /// The handshake completed without a common SRTP protection profile.
    case noSRTPProfile
    /// Setting up OpenSSL (context, certificate, key) failed.
    case setup(String)
}
