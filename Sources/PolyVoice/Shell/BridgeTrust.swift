// Which CA file a call trusts besides the system store, and so which HTTP transport reaches its bridge.
import Foundation
import PolySignaling

enum BridgeTrust {
    /// `VoiceOptions.trustedCAFile`, else the `POLYVOICE_CA_FILE` environment variable (empty: unset).
    static func caFile(_ option: String?) -> String? {
        option ?? ProcessInfo.processInfo.environment["POLYVOICE_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The REST transport for `baseURL`: with a CA file an `https:` bridge goes through TLSHTTPTransport, the
    /// only one that can add it (URLSession on Linux cannot, and must not quietly skip verification instead).
    /// Otherwise URLSession, whose pooled keep-alive connections save a handshake per request.
    static func transport(for baseURL: URL, caFile: String?) -> any HTTPTransport {
        if let caFile, baseURL.scheme?.lowercased() == "https" { return TLSHTTPTransport(trustedCAFile: caFile) }
        return RenewableHTTPTransport.shared
    }
}
