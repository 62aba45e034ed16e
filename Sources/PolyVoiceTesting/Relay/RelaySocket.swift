// A minimal non-blocking UDP socket for the relay (to consolidate with PolyNet's UDPSocket when it lands).
import Foundation
import PolyNet

/// Why the relay could not set up a socket.
public struct RelaySocketError: Error, CustomStringConvertible {
    public let operation: String
    public let code: Int32

    public var description: String { "\(operation) failed: \(String(cString: strerror(code)))" }
}

/// A non-blocking UDP socket owned by the relay's thread (or handed to it before it starts).
struct RelaySocket {
    let descriptor: Int32

    /// Opens a socket bound to `address` (port 0: any free port).
    static func bind(_ address: TransportAddress) throws(RelaySocketError) -> RelaySocket {
        let family = address.family == .v4 ? AF_INET : AF_INET6
        let descriptor = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw RelaySocketError(operation: "socket", code: errno) }
        var storage = SocketAddress(address)
        let result = storage.withPointer { Foundation.bind(descriptor, $0, $1) }
        guard result == 0 else {
            let code = errno
            Foundation.close(descriptor)
            throw RelaySocketError(operation: "bind \(address)", code: code)
        }
        return RelaySocket(descriptor: descriptor)
    }

    /// The address the socket is bound to (with the port the kernel chose).
    func localAddress() -> TransportAddress? {
        var storage = SocketAddress()
        let ok = storage.withMutablePointer { pointer, length in getsockname(descriptor, pointer, length) == 0 }
        return ok ? storage.transportAddress : nil
    }

    /// Reads one datagram into `buffer`; nil when none is waiting.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> (count: Int, from: TransportAddress)? {
        var storage = SocketAddress()
        var count = -1
        storage.withMutablePointer { pointer, length in
            count = recvfrom(descriptor, buffer.baseAddress, buffer.count, 0, pointer, length)
        }
        guard count >= 0, let from = storage.transportAddress else { return nil }
        return (count, from)
    }

    /// Sends one datagram; a full buffer or an unreachable peer just loses it, as UDP does.
    func send(_ bytes: [UInt8], to address: TransportAddress) {
        var storage = SocketAddress(address)
        _ = bytes.withUnsafeBytes { raw in
            storage.withPointer { sendto(descriptor, raw.baseAddress, raw.count, 0, $0, $1) }
        }
    }

    func close() { Foundation.close(descriptor) }
}

/// A `sockaddr_storage` converted from and to `TransportAddress`.
private struct SocketAddress {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)

    init() {}

    init(_ address: TransportAddress) {
        withUnsafeMutableBytes(of: &storage) { raw in
            if address.family == .v4 {
                var v4 = sockaddr_in()
                v4.sin_family = sa_family_t(AF_INET)
                v4.sin_port = address.port.bigEndian
                withUnsafeMutableBytes(of: &v4.sin_addr) { $0.copyBytes(from: address.ip.bytes) }
                raw.storeBytes(of: v4, as: sockaddr_in.self)
                length = socklen_t(MemoryLayout<sockaddr_in>.size)
            } else {
                var v6 = sockaddr_in6()
                v6.sin6_family = sa_family_t(AF_INET6)
                v6.sin6_port = address.port.bigEndian
                withUnsafeMutableBytes(of: &v6.sin6_addr) { $0.copyBytes(from: address.ip.bytes) }
                raw.storeBytes(of: v6, as: sockaddr_in6.self)
                length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            }
        }
    }

    var transportAddress: TransportAddress? {
        withUnsafeBytes(of: storage) { raw -> TransportAddress? in
            switch Int32(storage.ss_family) {
            case AF_INET:
                let v4 = raw.load(as: sockaddr_in.self)
                let ip = withUnsafeBytes(of: v4.sin_addr) { IPAddress(bytes: Array($0)) }
                return ip.map { TransportAddress(ip: $0, port: UInt16(bigEndian: v4.sin_port)) }
            case AF_INET6:
                let v6 = raw.load(as: sockaddr_in6.self)
                let ip = withUnsafeBytes(of: v6.sin6_addr) { IPAddress(bytes: Array($0)) }
                return ip.map { TransportAddress(ip: $0, port: UInt16(bigEndian: v6.sin6_port)) }
            default:
                return nil
            }
        }
    }

    mutating func withPointer<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        let length = self.length
        return withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    mutating func withMutablePointer<R>(_ body: (UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> R)
        -> R
    {
        length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                withUnsafeMutablePointer(to: &length) { body(address, $0) }
            }
        }
    }
}
