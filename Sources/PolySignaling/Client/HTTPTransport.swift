// The HTTP exchange BridgeClient needs, behind a protocol so tests can count requests or fail them.

/// Performs one HTTP request. Throws only when no HTTP response was received, with a `.transport` error whose
/// text names the failure (refused, timed out, TLS…), never the URL, a header or a token.
public protocol HTTPTransport: Sendable {
    func perform(_ request: HTTPClientRequest) async throws(SignalingError) -> HTTPClientResponse
}
