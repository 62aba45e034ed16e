// `iceServers[].urls` entries (RFC 7064 `stun:`/`stuns:`, RFC 7065 `turn:`/`turns:`) split into parts;
// the shell resolves the host name and passes STUN servers to `ICEConfiguration.stunServers`.

/// A parsed STUN/TURN server URL.
public struct ICEServerURL: Hashable, Sendable {
    public enum Scheme: String, Hashable, Sendable { case stun, stuns, turn, turns }

    public var scheme: Scheme
    /// Host name or IP literal (IPv6 without brackets).
    public var host: String
    public var port: UInt16
    /// `?transport=udp|tcp` for TURN URLs.
    public var transport: String?

    /// Parses e.g. `stun:stun.example.org`, `stun:[2001:db8::1]:3478`, `turn:t.example.org?transport=udp`.
    public init?(_ text: String) {
        guard let colon = text.firstIndex(of: ":"), let scheme = Scheme(rawValue: text[..<colon].lowercased())
        else { return nil }
        var rest = Substring(text[text.index(after: colon)...])
        if let query = rest.firstIndex(of: "?") {
            let parameter = rest[rest.index(after: query)...]
            guard parameter.hasPrefix("transport=") else { return nil }
            transport = String(parameter.dropFirst("transport=".count)).lowercased()
            rest = rest[..<query]
        }
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else if let portColon = rest.lastIndex(of: ":") {
            host = String(rest[..<portColon])
            portText = rest[rest.index(after: portColon)...]
        } else {
            host = String(rest)
        }
        guard !host.isEmpty, !host.contains(":") || rest.hasPrefix("[") else { return nil }
        if let portText {
            guard let port = UInt16(portText), port > 0 else { return nil }
            self.port = port
        } else {
            port = scheme == .stuns || scheme == .turns ? 5349 : 3478
        }
        self.scheme = scheme
    }

    /// The address when `host` is an IP literal (no DNS needed).
    public var literalAddress: TransportAddress? { IPAddress(host).map { TransportAddress(ip: $0, port: port) } }
}
