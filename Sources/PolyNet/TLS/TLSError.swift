// Why a TLS client connection (TURN over TLS) failed, naming the server.

/// A TLS failure. `reason` is the text without the server; `description` names it.
public enum TLSError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The context could not be made (OpenSSL, or the extra CA file could not be loaded).
    case setup(String)
    /// The server's certificate chain or name did not verify: never a silent fallback.
    case verificationFailed(server: String, reason: String)
    /// The handshake failed for another reason (protocol versions, alerts, garbage).
    case handshakeFailed(server: String, reason: String)
    /// The server closed the TLS session (close_notify).
    case closed(server: String)
    /// Reading or writing records failed after the handshake.
    case failed(server: String, reason: String)

    public var reason: String {
        switch self {
        case .setup(let text): "TLS setup failed: \(text)"
        case .verificationFailed(_, let text): "certificate verification failed: \(text)"
        case .handshakeFailed(_, let text): "TLS handshake failed: \(text)"
        case .closed: "the server closed the TLS session"
        case .failed(_, let text): "TLS failed: \(text)"
        }
    }

    public var description: String {
        switch self {
        case .setup: reason
        case .verificationFailed(let server, _), .handshakeFailed(let server, _), .closed(let server),
            .failed(let server, _):
            "TLS to \(server): \(reason)"
        }
    }
}
