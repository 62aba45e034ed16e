// An IP address configured on a local network interface.

/// An address on a local interface, as getifaddrs or netlink report it.
public struct InterfaceAddress: Hashable, Sendable, CustomStringConvertible {
    public var ip: IPAddress
    public var prefixLength: UInt8
    /// The kernel's interface index (stable while the interface exists).
    public var interfaceIndex: UInt32
    /// The interface name (`eth0`), when known.
    public var interfaceName: String?

    public init(ip: IPAddress, prefixLength: UInt8, interfaceIndex: UInt32, interfaceName: String?) {
        self.ip = ip
        self.prefixLength = prefixLength
        self.interfaceIndex = interfaceIndex
        self.interfaceName = interfaceName
    }

    public var description: String { "\(ip)/\(prefixLength) on \(interfaceName ?? "#\(interfaceIndex)")" }
}
