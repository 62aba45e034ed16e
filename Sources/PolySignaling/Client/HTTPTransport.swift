// The HTTP exchange BridgeClient needs, behind a protocol so tests can count requests or fail them.
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Performs one HTTP request. Throws only when no HTTP response was received.
public protocol HTTPTransport: Sendable {
    func perform(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)
}

/// `HTTPTransport` over a Foundation `URLSession` (FoundationNetworking on Linux).
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// One ephemeral session (no cookies, no cache) shared by default: sessions are never invalidated here.
    private static let sharedSession = URLSession(configuration: .ephemeral)

    /// Uses the shared ephemeral session unless one is given.
    public init(session: URLSession? = nil) { self.session = session ?? Self.sharedSession }

    public func perform(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return (data, http)
    }
}

extension SignalingError {
    /// A transport error from whatever a transport threw; the text names the failure, never a URL or header.
    static func transport(from error: any Error) -> SignalingError {
        if let error = error as? SignalingError { return error }
        guard let urlError = error as? URLError else { return .transport("network error") }
        if let text = tlsFailureText(urlError) { return .transport("TLS failure: \(text)") }
        switch urlError.code {
        case .timedOut: return .transport("request timed out")
        case .cannotConnectToHost: return .transport("connection refused")
        case .cannotFindHost, .dnsLookupFailed: return .transport("host not found")
        case .notConnectedToInternet, .networkConnectionLost: return .transport("network connection lost")
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
            return .transport("TLS failure")
        default: return .transport("network error (\(urlError.code.rawValue))")
        }
    }

    /// libcurl under FoundationNetworking reports a certificate that does not verify as an unknown error (-1)
    /// whose description is curl's text ("SSL certificate problem: unable to get local issuer certificate"):
    /// that text (no URL or header in it), so the failure says it was the certificate.
    private static func tlsFailureText(_ error: URLError) -> String? {
        guard error.code == .unknown else { return nil }
        let text = error.localizedDescription
        guard text.hasPrefix("SSL") || text.localizedCaseInsensitiveContains("certificate") else { return nil }
        return String(text.prefix(200))
    }
}
