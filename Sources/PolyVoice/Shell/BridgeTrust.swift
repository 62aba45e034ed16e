// Which CA file a call trusts besides the system store, and so the HTTP transport that reaches its bridge.
import FoundationEssentials
import PolySignaling

enum BridgeTrust {
    /// `VoiceOptions.trustedCAFile`, else the `POLYVOICE_CA_FILE` environment variable (empty: unset).
    static func caFile(_ option: String?) -> String? {
        option ?? ProcessInfo.processInfo.environment["POLYVOICE_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The REST transport for `baseURL`: the project's own HTTP/1.1 client for every bridge (plain TCP for
    /// `http:`; for `https:` TLS verified against the system store plus `caFile`, which only an `https:` bridge
    /// uses).
    static func transport(for baseURL: URL, caFile: String?) -> TLSHTTPTransport {
        TLSHTTPTransport(trustedCAFile: baseURL.scheme?.lowercased() == "https" ? caFile : nil)
    }
}
