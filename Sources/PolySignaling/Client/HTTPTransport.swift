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
}
