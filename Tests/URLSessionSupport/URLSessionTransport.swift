// `HTTPTransport` over Foundation's URLSession, for tests and benchmarks that talk to a bridge: the libraries
// and `polyvoice` link no FoundationNetworking (docs/MEMORY.md), so this lives here, outside them.
import Foundation
import PolyCore
import PolySignaling

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

public struct URLSessionTransport: HTTPTransport {
    /// One ephemeral session (no cookies, no cache) for every request: sessions are never invalidated here.
    private static let session = URLSession(configuration: .ephemeral)

    public init() {}

    public func perform(_ request: HTTPClientRequest) async throws(SignalingError) -> HTTPClientResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.timeoutInterval = request.timeout.inSeconds
        for (name, value) in request.headers { urlRequest.addValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body.map { Data($0) }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await Self.session.data(for: urlRequest)
        } catch let error as URLError {
            switch error.code {
            case .timedOut: throw .transport("request timed out")
            case .cannotConnectToHost: throw .transport("connection refused")
            default: throw .transport("network error (\(error.code.rawValue))")
            }
        } catch {
            throw .transport("network error")
        }
        guard let http = response as? HTTPURLResponse else { throw .transport("not an HTTP response") }
        var headers = HTTPHeaders()
        for case (let name as String, let value as String) in http.allHeaderFields {
            headers.add(name: name, value: value)
        }
        return HTTPClientResponse(status: http.statusCode, headers: headers, body: Array(data))
    }
}
