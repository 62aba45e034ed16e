// Watches the kernel's route netlink socket for address and link changes, on the event loop.
import CLinux
import Glibc
import PolyCore

/// Reports local address and link changes (RTMGRP_LINK, RTMGRP_IPV4_IFADDR, RTMGRP_IPV6_IFADDR) as they
/// happen, on the event loop thread. The socket belongs to the network namespace of the thread that
/// creates the monitor.
public final class NetworkMonitor: @unchecked Sendable {
    public typealias Handler = @Sendable (NetworkChange) -> Void

    private let descriptor: Int32
    private let loop: EventLoop
    private let registration: EventLoop.Registration
    private let closed = PlainLock()
    private var isClosed = false

    /// Opens and subscribes the netlink socket and starts reporting to `handler` on `loop`.
    public init(loop: EventLoop = .shared, handler: @escaping Handler) throws(SocketError) {
        let descriptor = socket(
            AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), NETLINK_ROUTE)
        guard descriptor >= 0 else { throw SocketError("socket(AF_NETLINK)") }
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        address.nl_groups = pv_rtmgrp_link() | pv_rtmgrp_ipv4_ifaddr() | pv_rtmgrp_ipv6_ifaddr()
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
            }
        }
        guard bound == 0 else {
            let error = SocketError("bind(AF_NETLINK)")
            Glibc.close(descriptor)
            throw error
        }
        self.descriptor = descriptor
        self.loop = loop
        let reader = NetlinkReader(descriptor: descriptor, handler: handler)
        registration = loop.register(fileDescriptor: descriptor) { reader.drain() }
    }

    deinit { stop() }

    /// Stops reporting and closes the socket (idempotent).
    public func stop() {
        closed.lock()
        defer { closed.unlock() }
        guard !isClosed else { return }
        isClosed = true
        loop.unregister(registration)
        let descriptor = descriptor
        loop.execute { Glibc.close(descriptor) }  // after the unregistration, on the loop thread
    }
}

/// Reads every pending netlink datagram into one reused buffer and reports what it says.
/// Used on the loop thread only.
private final class NetlinkReader: @unchecked Sendable {
    let descriptor: Int32
    let handler: NetworkMonitor.Handler
    var buffer = [UInt8](repeating: 0, count: 32_768)

    init(descriptor: Int32, handler: @escaping NetworkMonitor.Handler) {
        self.descriptor = descriptor
        self.handler = handler
    }

    func drain() {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == ENOBUFS {
                    handler(.eventsLost)
                    continue
                }
                return  // EAGAIN: drained (other errors: the socket is being closed)
            }
            guard count > 0 else { return }
            // A malformed datagram is dropped whole; the kernel does not send them, so nothing is lost in practice.
            guard let changes = try? NetlinkParser.parse(Array(buffer[0..<count])) else { continue }
            for change in changes { handler(change) }
        }
    }
}
