// The bytes of one HTTP/1.1 request for transports that speak HTTP themselves (TLSHTTPTransport): one request
import FoundationEssentials
// per connection, so the framing headers are this encoder's, never the caller's.

public enum HTTPRequestEncoder {
    /// Why a request cannot be written; the texts name no URL and no header value (they may hold tokens).
    public enum EncodeError: Error, Equatable, Sendable, CustomStringConvertible {
        case invalidURL
        case invalidHeader(name: String)

        public var description: String {
            switch self {
            case .invalidURL: "the URL cannot be sent as an HTTP/1.1 request target"
            case .invalidHeader(let name): "header \(name) holds a control character"
            }
        }
    }

    /// Headers this encoder sets itself (a caller's would contradict the framing).
    static let framingHeaders: Set<String> = ["host", "content-length", "transfer-encoding", "connection"]

    /// `METHOD target HTTP/1.1`, `Host`, the request's headers, `Content-Length` (for a body, or any
    /// method but GET/HEAD/DELETE), `Connection: close`, then the body.
    public static func encode(_ request: HTTPClientRequest) throws(EncodeError) -> [UInt8] {
        let url = request.url
        guard let host = url.host, !host.isEmpty,
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { throw .invalidURL }
        let method = request.method
        guard !method.isEmpty, method.utf8.allSatisfy({ (65...90).contains($0) }) else { throw .invalidURL }
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        guard target.hasPrefix("/"), target.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else { throw .invalidURL }
        let bareHost = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        guard bareHost.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != UInt8(ascii: "/") }) else {
            throw .invalidURL
        }
        var authority = bareHost.contains(":") ? "[\(bareHost)]" : bareHost
        let defaultPort = url.scheme?.lowercased() == "https" ? 443 : 80
        if let port = url.port, port != defaultPort { authority += ":\(port)" }

        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(authority)\r\n"
        for (name, value) in request.headers {
            guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != UInt8(ascii: ":") }) else {
                throw .invalidHeader(name: "(unnamed)")
            }
            guard value.utf8.allSatisfy({ $0 == 9 || ($0 >= 32 && $0 != 127) }) else {
                throw .invalidHeader(name: name)
            }
            if framingHeaders.contains(name.lowercased()) { continue }
            head += "\(name): \(value)\r\n"
        }
        let body = request.body ?? []
        if !body.isEmpty || !["GET", "HEAD", "DELETE"].contains(method) { head += "Content-Length: \(body.count)\r\n" }
        head += "Connection: close\r\n\r\n"
        return Array(head.utf8) + body
    }
}
