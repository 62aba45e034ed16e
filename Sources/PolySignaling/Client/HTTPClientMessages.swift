// The request an HTTPTransport sends and the response it returns: plain values of the project's own, so
import FoundationEssentials
// BridgeClient and its transports need nothing from FoundationNetworking (URLRequest and HTTPURLResponse live
// there on Linux, and linking it costs a process about 10 MB: docs/MEMORY.md).

/// One HTTP request. Descriptions show the method, the header names and the body's size: never the URL or a
/// header value, which may hold a call's id or a token.
public struct HTTPClientRequest: Sendable, Equatable, CustomStringConvertible {
    public var method: String
    public var url: URL
    public var headers: HTTPHeaders
    /// The body, if any.
    public var body: [UInt8]?
    /// For the whole exchange: connecting, the TLS handshake, sending and the complete response.
    public var timeout: Duration

    public init(
        method: String = "GET", url: URL, headers: HTTPHeaders = [:], body: [UInt8]? = nil,
        timeout: Duration = .seconds(60)
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    public var description: String {
        "HTTPClientRequest(\(method), headers: \(headers), body: \(body.map { "\($0.count) bytes" } ?? "none"))"
    }
}

/// One HTTP response: the final status (interim 1xx answers are not responses here), headers, complete body.
public struct HTTPClientResponse: Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200...299).contains(status) }

    public var description: String { "HTTPClientResponse(\(status), headers: \(headers), body: \(body.count) bytes)" }
}
