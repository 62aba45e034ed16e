// The host's own IP addresses (ICE host candidates), from getifaddrs.
import CLinux
import Glibc

/// Enumerates the addresses of the interfaces that are up.
public enum LocalAddresses {
    public struct Options: Sendable {
        public var includeLoopback: Bool
        /// IPv6 link-local (fe80::/10) addresses need a scope id, which ICE candidates cannot carry.
        public var includeLinkLocalIPv6: Bool
        public var families: Set<IPAddress.Family>

        public init(
            includeLoopback: Bool = false, includeLinkLocalIPv6: Bool = false,
            families: Set<IPAddress.Family> = [.v4, .v6]
        ) {
            self.includeLoopback = includeLoopback
            self.includeLinkLocalIPv6 = includeLinkLocalIPv6
            self.families = families
        }
    }

    /// Addresses of up interfaces, IPv4 first, in the kernel's order otherwise; no duplicates.
    public static func enumerate(_ options: Options = Options()) throws(SocketError) -> [InterfaceAddress] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { throw SocketError("getifaddrs") }
        defer { freeifaddrs(list) }
        var found: [InterfaceAddress] = []
        var entry = list
        while let current = entry?.pointee {
            entry = current.ifa_next
            let flags = Int32(bitPattern: current.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, let address = current.ifa_addr else { continue }
            guard let ip = ipAddress(address) else { continue }
            guard options.families.contains(ip.family) else { continue }
            if flags & Int32(IFF_LOOPBACK) != 0 || ip.isLoopback, !options.includeLoopback { continue }
            if ip.family == .v6, ip.isLinkLocal, !options.includeLinkLocalIPv6 { continue }
            let name = current.ifa_name.map { String(cString: $0) }
            let index = current.ifa_name.map { if_nametoindex($0) } ?? 0
            let prefix = current.ifa_netmask.flatMap(ipAddress).map(prefixLength) ?? 0
            let item = InterfaceAddress(ip: ip, prefixLength: prefix, interfaceIndex: index, interfaceName: name)
            if !found.contains(item) { found.append(item) }
        }
        return found.filter { $0.ip.family == .v4 } + found.filter { $0.ip.family == .v6 }
    }

    private static func ipAddress(_ address: UnsafeMutablePointer<sockaddr>) -> IPAddress? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let v4 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in.self)
            return IPAddress(bytes: withUnsafeBytes(of: v4.sin_addr) { Array($0) })
        case AF_INET6:
            let v6 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in6.self)
            return IPAddress(bytes: withUnsafeBytes(of: v6.sin6_addr) { Array($0) })
        default:
            return nil
        }
    }

    private static func prefixLength(_ mask: IPAddress) -> UInt8 {
        UInt8(mask.bytes.reduce(0) { $0 + $1.nonzeroBitCount })
    }
}
