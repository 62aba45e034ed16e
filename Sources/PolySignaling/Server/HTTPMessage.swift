// The request a server handler sees and the response it returns.

/// An HTTP request as received by `HTTPServer`.
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, `PUT`, `PATCH`, `DELETE`, `OPTIONS` or `HEAD`.
    public var method: String
    /// The path without the query, e.g. `/api/v1/call/c1/sdp`.
    public var path: String
    /// The query string without `?` (empty if none).
    public var query: String
    /// Request headers with lower-cased names (standard headers, plus the configured custom ones).
    public var headers: [String: String]
    public var body: [UInt8]
    /// Path parameters filled in by `HTTPRouter` (`{id}` segments).
    public var parameters: [String: String]
    /// The client's IP address (for per-client limits); empty if unknown.
    public var remoteAddress: String

    public init(
        method: String, path: String, query: String = "", headers: [String: String] = [:], body: [UInt8] = [],
        parameters: [String: String] = [:], remoteAddress: String = ""
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.parameters = parameters
        self.remoteAddress = remoteAddress
    }

    /// The value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// The response a handler returns: status, extra headers and a (usually JSON) body.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    /// Extra headers (Content-Type and Content-Length are set by the server).
    public var headers: [String: String]
    public var contentType: String
    public var body: [UInt8]
    /// The `error` code of an `error(...)` response (for counting rejections by reason); not sent.
    public var errorCode: String?

    public init(
        status: Int, headers: [String: String] = [:], contentType: String = "application/json", body: [UInt8] = [],
        errorCode: String? = nil
    ) {
        self.status = status
        self.headers = headers
        self.contentType = contentType
        self.body = body
        self.errorCode = errorCode
    }

    /// A JSON response with `value` encoded as the body.
    public static func json(_ value: some Encodable, status: Int = 200, headers: [String: String] = [:])
        -> HTTPResponse
    {
        HTTPResponse(status: status, headers: headers, body: MessageCoding.encode(value))
    }

    /// A JSON error body `{"error": code, "message": message}`.
    public static func error(
        _ status: Int, code: String, message: String? = nil, headers: [String: String] = [:]
    ) -> HTTPResponse {
        var response = json(ErrorBody(error: code, message: message), status: status, headers: headers)
        response.errorCode = code
        return response
    }

    /// A plain-text response (e.g. Prometheus metrics).
    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8")
        -> HTTPResponse
    {
        HTTPResponse(status: status, contentType: contentType, body: Array(text.utf8))
    }
}
