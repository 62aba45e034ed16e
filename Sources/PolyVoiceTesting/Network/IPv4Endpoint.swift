// An IPv4 address and UDP port, for the simulator and the relay (to merge with PolyNet's address type later).

/// An IPv4 address plus port, e.g. `127.0.0.1:5004`.
public struct IPv4Endpoint: Hashable, Sendable, CustomStringConvertible {
    /// The address in host byte order (127.0.0.1 is 0x7F00_0001).
    public var address: UInt32
    public var port: UInt16

    public init(address: UInt32, port: UInt16) {
        self.address = address
        self.port = port
    }

    public init(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8, port: UInt16) {
        self.init(address: UInt32(a) << 24 | UInt32(b) << 16 | UInt32(c) << 8 | UInt32(d), port: port)
    }

    /// Parses `a.b.c.d:port`; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let port = UInt16(parts[1]) else { return nil }
        let octets = parts[0].split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4 else { return nil }
        var address: UInt32 = 0
        for octet in octets {
            guard octet.count <= 3, let value = UInt8(octet) else { return nil }
            address = address << 8 | UInt32(value)
        }
        self.init(address: address, port: port)
    }

    /// The same address with another port.
    public func with(port: UInt16) -> IPv4Endpoint { IPv4Endpoint(address: address, port: port) }

    public var description: String {
        let octets = [24, 16, 8, 0].map { String((address >> UInt32($0)) & 0xFF) }
        return octets.joined(separator: ".") + ":\(port)"
    }
}
