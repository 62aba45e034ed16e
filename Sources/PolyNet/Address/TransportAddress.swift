// IP addresses and UDP transport addresses as plain values shared by STUN, ICE, SDP and sockets.
import Foundation

/// An IPv4 or IPv6 address held as its network-order bytes (4 or 16 of them).
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    public enum Family: Hashable, Sendable { case v4, v6 }

    /// Network-order bytes: exactly 4 (IPv4) or 16 (IPv6).
    public let bytes: [UInt8]

    /// Fails unless `bytes` has 4 or 16 elements.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    public init(v4 a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) { bytes = [a, b, c, d] }

    /// Parses dotted IPv4 or textual IPv6 (no brackets, no zone id); nil if malformed.
    public init?(_ text: some StringProtocol) {
        let string = String(text)
        guard !string.utf8.contains(0) else { return nil }  // C would stop at the NUL
        var v4 = in_addr()
        if string.contains("."), !string.contains(":"), inet_pton(AF_INET, string, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if string.contains(":"), inet_pton(AF_INET6, string, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    public static let loopbackV4 = IPAddress(v4: 127, 0, 0, 1)
    public static let anyV4 = IPAddress(v4: 0, 0, 0, 0)
    public static let loopbackV6 = IPAddress(bytes: Array(repeating: 0, count: 15) + [1])!

    public var family: Family { bytes.count == 4 ? .v4 : .v6 }
    public var isLoopback: Bool { family == .v4 ? bytes[0] == 127 : self == .loopbackV6 }
    /// IPv6 link-local (fe80::/10): usable only with a scope, so ICE skips it.
    public var isLinkLocal: Bool {
        family == .v4 ? (bytes[0] == 169 && bytes[1] == 254) : (bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80)
    }

    /// Canonical text (RFC 5952 for IPv6, as inet_ntop prints it).
    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = self.family == .v4 ? AF_INET : AF_INET6
        let ok = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
        }
        guard ok else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A UDP transport address: IP address and port.
public struct TransportAddress: Hashable, Sendable, CustomStringConvertible {
    public var ip: IPAddress
    public var port: UInt16

    public init(ip: IPAddress, port: UInt16) {
        self.ip = ip
        self.port = port
    }

    /// Parses `1.2.3.4:5000` or `[::1]:5000`; nil if malformed.
    public init?(_ text: some StringProtocol) {
        let string = String(text)
        let host: Substring
        let portText: Substring
        if string.hasPrefix("[") {
            guard let close = string.firstIndex(of: "]") else { return nil }
            host = string[string.index(after: string.startIndex)..<close]
            let rest = string[string.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portText = rest.dropFirst()
        } else {
            guard let colon = string.lastIndex(of: ":") else { return nil }
            host = string[..<colon]
            guard !host.contains(":") else { return nil }  // bare IPv6 needs brackets
            portText = string[string.index(after: colon)...]
        }
        guard let ip = IPAddress(host), let port = UInt16(portText) else { return nil }
        self.init(ip: ip, port: port)
    }

    public var family: IPAddress.Family { ip.family }

    /// `1.2.3.4:5000` or `[::1]:5000`.
    public var description: String {
        ip.family == .v4 ? "\(ip):\(port)" : "[\(ip)]:\(port)"
    }
}
