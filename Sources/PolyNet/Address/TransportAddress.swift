// IP addresses and UDP transport addresses as plain values shared by STUN, ICE, SDP and sockets.
import Glibc

/// An IPv4 or IPv6 address held as its network-order bytes (4 or 16 of them).
///
/// The bytes are stored inline, not in an array: addresses travel with every datagram (sources,
/// destinations, the selected pair), and copying an array-backed one retained and released it each time.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    public enum Family: Hashable, Sendable { case v4, v6 }

    public let family: Family
    /// Bytes 0..<8 and 8..<16 in memory order; an IPv4 address uses the first 4, the rest stay zero.
    private var head: UInt64 = 0
    private var tail: UInt64 = 0

    /// Network-order bytes: exactly 4 (IPv4) or 16 (IPv6).
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// Fails unless `bytes` has 4 or 16 elements.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.init(unchecked: bytes)
    }

    public init(v4 a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) { self.init(unchecked: [a, b, c, d]) }

    /// From exactly 4 or 16 bytes (checked by the callers).
    init(unchecked bytes: some Collection<UInt8>) {
        family = bytes.count == 4 ? .v4 : .v6
        withUnsafeMutableBytes(of: &head) { head in
            withUnsafeMutableBytes(of: &tail) { tail in
                for (index, byte) in bytes.enumerated() {
                    if index < 8 { head[index] = byte } else { tail[index - 8] = byte }
                }
            }
        }
    }

    /// Calls `body` with the 4 or 16 network-order bytes (on the stack, no allocation).
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let count = family == .v4 ? 4 : 16
        return try Swift.withUnsafeBytes(of: (head, tail)) { try body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }

    /// The byte at `index` (0..<4 or 0..<16).
    private func byte(_ index: Int) -> UInt8 { withUnsafeBytes { $0[index] } }

    /// Parses dotted IPv4 or textual IPv6 (no brackets, no zone id); nil if malformed.
    public init?(_ text: some StringProtocol) {
        let string = String(text)
        guard !string.utf8.contains(0) else { return nil }  // C would stop at the NUL
        var v4 = in_addr()
        if string.contains("."), !string.contains(":"), inet_pton(AF_INET, string, &v4) == 1 {
            self.init(unchecked: Swift.withUnsafeBytes(of: &v4) { Array($0) })
            return
        }
        var v6 = in6_addr()
        if string.contains(":"), inet_pton(AF_INET6, string, &v6) == 1 {
            self.init(unchecked: Swift.withUnsafeBytes(of: &v6) { Array($0) })
            return
        }
        return nil
    }

    public static let loopbackV4 = IPAddress(v4: 127, 0, 0, 1)
    public static let anyV4 = IPAddress(v4: 0, 0, 0, 0)
    public static let loopbackV6 = IPAddress(bytes: Array(repeating: 0, count: 15) + [1])!

    public var isLoopback: Bool { family == .v4 ? byte(0) == 127 : self == .loopbackV6 }
    /// IPv6 link-local (fe80::/10): usable only with a scope, so ICE skips it.
    public var isLinkLocal: Bool {
        family == .v4 ? (byte(0) == 169 && byte(1) == 254) : (byte(0) == 0xFE && byte(1) & 0xC0 == 0x80)
    }

    /// Canonical text (RFC 5952 for IPv6, as inet_ntop prints it).
    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = self.family == .v4 ? AF_INET : AF_INET6
        let ok = withUnsafeBytes { raw in
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
