// A non-blocking UDP socket bound to one local address (IPv4 or IPv6).
import CLinux
import Glibc
import PolyCore

/// A non-blocking UDP socket. `send` may be called from any thread; `receive` from one thread at a time
/// (the event loop's): it caches the last source address so a steady peer costs no allocation per packet.
public final class UDPSocket: @unchecked Sendable {
    /// The kernel file descriptor (for registration with an `EventLoop`); -1 once closed.
    public private(set) var fileDescriptor: Int32
    /// The bound address, with the port the kernel chose when bound to port 0.
    public let localAddress: TransportAddress

    private var lastSource = sockaddr_storage()
    private var lastSourceLength: socklen_t = 0
    private var lastSourceAddress: TransportAddress?
    private let closeLock = PlainLock()

    /// Creates the socket, sets optional kernel buffer sizes, and binds it (`port` 0 lets the kernel choose).
    public init(bindingTo address: TransportAddress, receiveBufferSize: Int? = nil, sendBufferSize: Int? = nil)
        throws(SocketError)
    {
        let family = address.family == .v4 ? AF_INET : AF_INET6
        let descriptor = socket(
            family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SocketError("socket") }
        do throws(SocketError) {
            if address.family == .v6 {
                var one: Int32 = 1  // no IPv4-mapped traffic on IPv6 sockets: one family per socket
                guard setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, 4) == 0 else {
                    throw SocketError("setsockopt(IPV6_V6ONLY)")
                }
            }
            if let size = receiveBufferSize { try Self.setOption(descriptor, SO_RCVBUF, size, "SO_RCVBUF") }
            if let size = sendBufferSize { try Self.setOption(descriptor, SO_SNDBUF, size, "SO_SNDBUF") }
            try address.withSocketAddress { pointer, length throws(SocketError) in
                guard bind(descriptor, pointer, length) == 0 else { throw SocketError("bind \(address)") }
            }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let named = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            guard named == 0, let bound = TransportAddress(socketAddress: storage) else {
                throw SocketError("getsockname")
            }
            localAddress = bound
        } catch {
            Glibc.close(descriptor)
            throw error
        }
        fileDescriptor = descriptor
    }

    deinit { close() }

    /// Sends one datagram. Returns false if the kernel buffer is full (the datagram is dropped, as UDP may).
    @discardableResult
    public func send(_ bytes: UnsafeRawBufferPointer, to destination: TransportAddress) throws(SocketError) -> Bool {
        let descriptor = fileDescriptor
        return try destination.withSocketAddress { address, length throws(SocketError) -> Bool in
            let sent = sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), address, length)
            if sent >= 0 { return true }
            let code = errno
            if code == EAGAIN || code == EWOULDBLOCK { return false }
            throw SocketError("sendto \(destination)", code: code)
        }
    }

    @discardableResult
    public func send(_ bytes: [UInt8], to destination: TransportAddress) throws(SocketError) -> Bool {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(SocketError) -> Bool in try send(buffer, to: destination) }
        }
        return try result.get()
    }

    /// Receives one datagram into `buffer`; nil when none is waiting. Longer datagrams are truncated to the buffer.
    public func receive(into buffer: UnsafeMutableRawBufferPointer) throws(SocketError) -> (
        count: Int, source: TransportAddress
    )? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let received = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                recvfrom(fileDescriptor, buffer.baseAddress, buffer.count, 0, $0, &length)
            }
        }
        if received < 0 {
            let code = errno
            if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { return nil }
            throw SocketError("recvfrom", code: code)
        }
        return (received, try source(storage, length))
    }

    /// The source as a TransportAddress, reusing the previous one when the peer is the same.
    private func source(_ storage: sockaddr_storage, _ length: socklen_t) throws(SocketError) -> TransportAddress {
        var storage = storage
        if let cached = lastSourceAddress, length == lastSourceLength,
            memcmp(&storage, &lastSource, Int(length)) == 0
        {
            return cached
        }
        guard let address = TransportAddress(socketAddress: storage) else {
            throw SocketError("recvfrom (unknown address family)", code: EAFNOSUPPORT)
        }
        lastSource = storage
        lastSourceLength = length
        lastSourceAddress = address
        return address
    }

    /// The kernel's receive buffer size (Linux reports twice the requested value).
    public var receiveBufferSize: Int { (try? Self.option(fileDescriptor, SO_RCVBUF)) ?? 0 }
    public var sendBufferSize: Int { (try? Self.option(fileDescriptor, SO_SNDBUF)) ?? 0 }

    /// Closes the descriptor (idempotent). Unregister it from its event loop first.
    public func close() {
        closeLock.lock()
        defer { closeLock.unlock() }
        guard fileDescriptor >= 0 else { return }
        Glibc.close(fileDescriptor)
        fileDescriptor = -1
    }

    private static func setOption(_ descriptor: Int32, _ option: Int32, _ value: Int, _ name: String)
        throws(SocketError)
    {
        var value = Int32(clamping: value)
        guard setsockopt(descriptor, SOL_SOCKET, option, &value, 4) == 0 else {
            throw SocketError("setsockopt(\(name))")
        }
    }

    private static func option(_ descriptor: Int32, _ option: Int32) throws(SocketError) -> Int {
        var value: Int32 = 0
        var length = socklen_t(4)
        guard getsockopt(descriptor, SOL_SOCKET, option, &value, &length) == 0 else { throw SocketError("getsockopt") }
        return Int(value)
    }
}
