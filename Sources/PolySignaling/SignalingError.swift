// Typed errors of the signaling layer. Descriptions never contain tokens.

/// An error talking to a voice bridge. The higher layer maps it onto `PolyError`.
public enum SignalingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The web calling token was rejected (401 on provision).
    case unauthorized
    /// The per-call token was rejected (401 on a per-call route, or close 1008 on the events socket).
    case callTokenRejected(route: String)
    /// The bridge refused the request (403), e.g. a mode it does not allow.
    case forbidden(route: String)
    /// Any other non-2xx status: the message is exactly "Bridge <route> failed (<status>)".
    case signalingFailed(String)
    /// The request never got an HTTP answer (connection refused, DNS, TLS, timeout…).
    case transport(String)
    /// The bridge answered 2xx with a body that is not the expected JSON.
    case malformedResponse(route: String, MessageError)
    /// A URL given by the configuration or the bridge cannot be used.
    case invalidURL(String)
    /// A per-call route was used before `provision` succeeded.
    case notProvisioned
    /// The bridge does not advertise the extension a call needs (e.g. `iceRestartUrl`).
    case extensionUnavailable(String)

    /// The error a non-2xx HTTP status maps to, per PROTOCOL.md.
    public static func forStatus(_ status: Int, route: String, perCall: Bool) -> SignalingError {
        switch status {
        case 401: return perCall ? .callTokenRejected(route: route) : .unauthorized
        case 403: return .forbidden(route: route)
        default: return .signalingFailed("Bridge \(route) failed (\(status))")
        }
    }

    public var description: String {
        switch self {
        case .unauthorized: return "The web calling token was rejected by the bridge (401)"
        case .callTokenRejected(let route): return "Bridge \(route) rejected the per-call token (401)"
        case .forbidden(let route): return "Bridge \(route) is forbidden (403)"
        case .signalingFailed(let message): return message
        case .transport(let message): return "Bridge unreachable: \(message)"
        case .malformedResponse(let route, let error): return "Bridge \(route) sent a malformed response: \(error)"
        case .invalidURL(let detail): return "Invalid bridge URL: \(detail)"
        case .notProvisioned: return "No call has been provisioned yet"
        case .extensionUnavailable(let key): return "The bridge does not offer the \(key) extension"
        }
    }

    /// Whether trying again later can succeed (transport problems and 5xx/429 after retries ran out).
    public var isRetryable: Bool {
        switch self {
        case .transport: return true
        case .signalingFailed(let message): return message.hasSuffix("(429)") || message.contains("(5")
        default: return false
        }
    }
}
