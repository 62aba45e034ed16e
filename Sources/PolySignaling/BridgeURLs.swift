// Resolution of the bridge's (usually relative) URLs against the base URL.
import FoundationEssentials

/// URL helpers for the bridge protocol.
public enum BridgeURLs {
    /// `reference` resolved against `base` (RFC 3986); absolute references are kept.
    public static func resolve(_ reference: String, against base: URL) throws(SignalingError) -> URL {
        guard !reference.isEmpty, let url = URL(string: reference, relativeTo: base)?.absoluteURL,
            let scheme = url.scheme?.lowercased(), ["http", "https", "ws", "wss"].contains(scheme), url.host != nil
        else { throw .invalidURL("cannot resolve \(reference) against \(base.absoluteString)") }
        return url
    }

    /// The WebSocket URL for an HTTP(S) URL: `http`→`ws`, `https`→`wss` (ws/wss unchanged).
    public static func webSocketURL(for url: URL) throws(SignalingError) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw .invalidURL(url.absoluteString)
        }
        switch components.scheme?.lowercased() {
        case "http", "ws": components.scheme = "ws"
        case "https", "wss": components.scheme = "wss"
        default: throw .invalidURL(url.absoluteString)
        }
        guard let result = components.url else { throw .invalidURL(url.absoluteString) }
        return result
    }
}
