// The HTTP proxy an https: request tunnels through (CONNECT, RFC 9110 §9.3.6), chosen from the environment the
// way curl chooses it (and so URLSession on Linux, which the bridge's REST client used before): `https_proxy`,
// `HTTPS_PROXY`, then `all_proxy`, `ALL_PROXY`; `no_proxy`/`NO_PROXY` names hosts that go direct.
import FoundationEssentials
import PolyCore

/// An `http://` proxy: where to connect, and the `Proxy-Authorization` its URL's user info asks for.
/// Descriptions show neither the credentials nor the target.
public struct HTTPProxy: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: UInt16
    /// `Basic …` from the proxy URL's `user:password@` (percent-decoded), nil without user info.
    public let authorization: String?

    public init(host: String, port: UInt16, authorization: String? = nil) {
        self.host = host
        self.port = port
        self.authorization = authorization
    }

    public var description: String { "HTTPProxy(\(host):\(port)\(authorization == nil ? "" : ", with credentials"))" }

    /// The proxy for an https: request to `host` (a name, or an IP address without brackets), or nil to go
    /// direct. Throws for a proxy setting this client cannot use (an https: or SOCKS proxy, a malformed URL):
    /// going direct instead would surprise whoever set it.
    public static func forHTTPS(host: String, environment: [String: String]) throws(SignalingError) -> HTTPProxy? {
        let names = ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]
        guard let setting = names.lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty }) else {
            return nil
        }
        let exceptions = environment["no_proxy"] ?? environment["NO_PROXY"] ?? ""
        if bypasses(host: host, noProxy: exceptions) { return nil }
        return try parse(setting)
    }

    /// `http://[user:password@]host[:port]` (a path is ignored), or `host[:port]` (curl's reading: plain HTTP);
    /// port 1080 if none, as curl.
    static func parse(_ setting: String) throws(SignalingError) -> HTTPProxy {
        let text = setting.contains("://") ? setting : "http://" + setting
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw .transport("unusable proxy setting: not a URL")
        }
        guard scheme == "http" else {
            throw .transport("unusable proxy setting: only http:// proxies are supported, not \(scheme)://")
        }
        guard let rawHost = components.host, !rawHost.isEmpty else {
            throw .transport("unusable proxy setting: no host")
        }
        let host = rawHost.hasPrefix("[") ? String(rawHost.dropFirst().dropLast()) : rawHost
        guard let port = UInt16(exactly: components.port ?? 1080), port > 0 else {
            throw .transport("unusable proxy setting: bad port")
        }
        var authorization: String?
        if let user = components.user {
            let credentials =
                (user.percentDecoded() ?? user) + ":"
                + (components.password.map { $0.percentDecoded() ?? $0 } ?? "")
            authorization = "Basic " + Data(credentials.utf8).base64EncodedString()
        }
        return HTTPProxy(host: host, port: port, authorization: authorization)
    }

    /// Whether `no_proxy` sends `host` direct: `*`, the host itself, or a domain it is in (`example.com` and
    /// `.example.com` both cover `a.example.com`); entries are compared without case, a `:port` on one ignored.
    static func bypasses(host: String, noProxy: String) -> Bool {
        let name = host.lowercased().trimming { $0 == "." }
        for raw in noProxy.split(separator: ",") {
            var entry = raw.trimmingWhitespace().lowercased()
            if entry == "*" { return true }
            if entry.hasPrefix("[") {
                entry = String(entry.dropFirst().prefix { $0 != "]" })  // [v6] or [v6]:port
            } else if entry.filter({ $0 == ":" }).count == 1 {
                entry = String(entry.prefix { $0 != ":" })  // name:port (an IPv6 address has several colons)
            }
            entry = entry.trimming { $0 == "." }
            if entry.isEmpty { continue }
            if name == entry || name.hasSuffix("." + entry) { return true }
        }
        return false
    }

    /// The CONNECT request opening a tunnel to `host:port` (an IPv6 address in brackets).
    public func connectRequest(toHost host: String, port: UInt16) -> [UInt8] {
        let authority = (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
        var head = "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n"
        if let authorization { head += "Proxy-Authorization: \(authorization)\r\n" }
        return Array((head + "\r\n").utf8)
    }
}
