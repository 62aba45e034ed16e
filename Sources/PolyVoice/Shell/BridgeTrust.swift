// Which CA file a call trusts besides the system store, and so which HTTP transport reaches its bridge.
import Foundation
import PolySignaling

enum BridgeTrust {
    /// `VoiceOptions.trustedCAFile`, else the `POLYVOICE_CA_FILE` environment variable (empty: unset).
    static func caFile(_ option: String?) -> String? {
        option ?? ProcessInfo.processInfo.environment["POLYVOICE_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The REST transport for `baseURL`. An `http:` bridge (a local or LAN one) goes through the project's own
    /// HTTP/1.1 client (`TLSHTTPTransport` over plain TCP): a TCP connect per request costs next to nothing
    /// there, and URLSession would bring libcurl's initialisation, several MB of a call's memory
    /// (docs/MEMORY.md). With a CA file an `https:` bridge goes through it too, the only transport that can add
    /// one (URLSession on Linux cannot, and must not quietly skip verification instead). Any other `https:`
    /// bridge uses URLSession, whose pooled keep-alive connections save a TLS handshake per request.
    static func transport(for baseURL: URL, caFile: String?) -> any HTTPTransport {
        switch baseURL.scheme?.lowercased() {
        case "http": TLSHTTPTransport(trustedCAFile: nil)
        case "https" where caFile != nil: TLSHTTPTransport(trustedCAFile: caFile)
        default: RenewableHTTPTransport.shared
        }
    }
}
