// Where the voice bridge lives (PROTOCOL.md, "Hosts").
import FoundationEssentials

/// The voice bridge deployment a call goes to.
public enum Environment: Hashable, Sendable, CustomStringConvertible {
    case us
    case uk
    case euw
    /// A named PolyAI cluster; the name must match `^[a-z0-9][a-z0-9-]*$`.
    case cluster(String)
    /// Any bridge at this http/https base URL.
    case custom(bridge: URL)
    /// The reference bridge on this machine: `http://127.0.0.1:<port>/`.
    case local(port: Int)

    /// The bridge base URL every relative path is resolved against (always ends with "/").
    public var bridgeBaseURL: URL {
        get throws(PolyError) {
            switch self {
            case .us: return Self.hosted("us-1")
            case .uk: return Self.hosted("uk-1")
            case .euw: return Self.hosted("euw-1")
            case .cluster(let name):
                guard Self.isValidClusterName(name) else {
                    throw .invalidConfiguration(
                        field: "environment", reason: "cluster name must match ^[a-z0-9][a-z0-9-]*$")
                }
                return Self.hosted(name)
            case .custom(let url):
                return try Self.validatedBase(url, field: "environment")
            case .local(let port):
                guard (1...65535).contains(port) else {
                    throw .invalidConfiguration(field: "environment", reason: "local port must be in 1...65535")
                }
                return URL(string: "http://127.0.0.1:\(port)/")!
            }
        }
    }

    /// Checks the environment without building anything else.
    public func validate() throws(PolyError) { _ = try bridgeBaseURL }

    public var description: String {
        switch self {
        case .us: "us"
        case .uk: "uk"
        case .euw: "euw"
        case .cluster(let name): "cluster(\(name))"
        case .custom(let url): "custom(\(url.scheme ?? "?")://\(url.host ?? "?"))"
        case .local(let port): "local(\(port))"
        }
    }

    private static func hosted(_ region: String) -> URL {
        URL(string: "https://webrtc-bridge.\(region).platform.polyai.app/")!
    }

    private static func isValidClusterName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, isLowerAlnum(first) else { return false }
        return name.unicodeScalars.allSatisfy { isLowerAlnum($0) || $0 == "-" }
    }

    private static func isLowerAlnum(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
    }

    /// An http/https URL with a host, without query or fragment, normalised to end with "/".
    static func validatedBase(_ url: URL, field: String) throws(PolyError) -> URL {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .invalidConfiguration(field: field, reason: "must be an http or https URL")
        }
        guard let host = url.host, !host.isEmpty else {
            throw .invalidConfiguration(field: field, reason: "must have a host")
        }
        guard url.query == nil, url.fragment == nil, url.user == nil, url.password == nil else {
            throw .invalidConfiguration(field: field, reason: "must not carry credentials, a query or a fragment")
        }
        let text = url.absoluteString
        return text.hasSuffix("/") ? url : URL(string: text + "/")!
    }
}
