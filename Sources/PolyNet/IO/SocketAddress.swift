// Conversions between TransportAddress and the kernel's sockaddr structures.
import CLinux
import Glibc

extension TransportAddress {
    /// Calls `body` with this address as a `sockaddr_in`/`sockaddr_in6` (on the stack, no allocation).
    func withSocketAddress<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws(SocketError) -> R)
        throws(SocketError) -> R
    {
        var storage = sockaddr_storage()
        let length: socklen_t
        switch ip.family {
        case .v4:
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &address.sin_addr) { target in
                ip.withUnsafeBytes { target.copyMemory(from: $0) }
            }
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: withUnsafeBytes(of: address) { $0 }) }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        case .v6:
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &address.sin6_addr) { target in
                ip.withUnsafeBytes { target.copyMemory(from: $0) }
            }
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: withUnsafeBytes(of: address) { $0 }) }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        }
        return try withUnsafePointer(to: &storage) { pointer throws(SocketError) -> R in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(SocketError) -> R in
                try body(address, length)
            }
        }
    }

    /// The address in a `sockaddr_storage` filled by the kernel; nil for families other than IPv4/IPv6.
    init?(socketAddress storage: sockaddr_storage) {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let address = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }
            self.init(
                ip: withUnsafeBytes(of: address.sin_addr) { IPAddress(unchecked: $0) },
                port: UInt16(bigEndian: address.sin_port))
        case AF_INET6:
            let address = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }
            self.init(
                ip: withUnsafeBytes(of: address.sin6_addr) { IPAddress(unchecked: $0) },
                port: UInt16(bigEndian: address.sin6_port))
        default:
            return nil
        }
    }
}
