// A non-blocking TCP client connection on an EventLoop: connect completes on EPOLLOUT, writes queue behind
// EAGAIN, reads are handed over as they come. Nothing on it ever blocks the loop.
import CLinux
import Glibc

/// One outgoing TCP connection, driven by `loop`. Create, `write` and `close` it on the loop thread only;
/// `onEvent` runs there too. After `.closed` (or `close()`) it reports nothing more.
public final class TCPConnection: @unchecked Sendable {
    public enum Event {
        /// The three-way handshake completed; queued bytes are being written.
        case connected
        /// Bytes read from the server, valid only during the call.
        case received(UnsafeRawBufferPointer)
        /// The connection failed or the server closed it; the text says why (no addresses beyond the server's).
        case closed(String)
    }

    public let remoteAddress: TransportAddress
    private let loop: EventLoop
    private let onEvent: @Sendable (Event) -> Void
    private var descriptor: Int32
    private var registration: EventLoop.Registration?
    private var connecting = true
    private var queue = StreamWriteQueue()
    private var writableInterest = true
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16_384, alignment: 16)
    /// Reads per readiness event, so one busy connection cannot starve the loop.
    private static let readBudget = 16

    /// Starts connecting to `address` (returns at once; `.connected` or `.closed` follows on the loop).
    public init(to address: TransportAddress, loop: EventLoop, onEvent: @escaping @Sendable (Event) -> Void)
        throws(SocketError)
    {
        remoteAddress = address
        self.loop = loop
        self.onEvent = onEvent
        let family = address.family == .v4 ? AF_INET : AF_INET6
        let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue)
        descriptor = socket(family, flags, 0)
        guard descriptor >= 0 else {
            readBuffer.deallocate()
            throw SocketError("socket")
        }
        var one: Int32 = 1  // TURN messages are small and latency matters: no Nagle delay
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, 4)
        let fd = descriptor
        let code =
            (try? address.withSocketAddress { pointer, length throws(SocketError) -> Int32 in
                connect(fd, pointer, length) == 0 ? 0 : errno
            }) ?? EINVAL
        if code != 0, code != EINPROGRESS {
            Glibc.close(descriptor)
            readBuffer.deallocate()
            throw SocketError("connect \(address)", code: code)
        }
        registration = loop.register(streamDescriptor: descriptor, writable: true) { [weak self] events in
            self?.handle(events)
        }
    }

    deinit {
        close()
        readBuffer.deallocate()
    }

    /// Bytes written to the connection but not yet taken by the kernel.
    public var queuedBytes: Int { queue.count }

    /// Queues `bytes` and writes what the kernel takes now (once connected).
    public func write(_ bytes: [UInt8]) {
        guard descriptor >= 0 else { return }
        queue.append(bytes)
        if !connecting { flush() }
    }

    /// Closes the socket without reporting `.closed`. Idempotent.
    public func close() {
        guard descriptor >= 0 else { return }
        if let registration { loop.unregister(registration) }
        registration = nil
        Glibc.close(descriptor)
        descriptor = -1
    }

    private func handle(_ events: EventLoop.StreamEvents) {
        guard descriptor >= 0 else { return }
        if connecting {
            guard events.contains(.writable) || events.contains(.failed) else { return }
            let code = socketError()
            guard code == 0 else { return fail("connect to \(remoteAddress): \(String(cString: strerror(code)))") }
            connecting = false
            onEvent(.connected)
            guard descriptor >= 0 else { return }
            flush()
            return
        }
        if events.contains(.readable) || events.contains(.failed) { read() }
        if descriptor >= 0, events.contains(.writable) { flush() }
    }

    private func read() {
        for _ in 0..<Self.readBudget {
            guard descriptor >= 0 else { return }
            let count = Glibc.read(descriptor, readBuffer.baseAddress, readBuffer.count)
            if count > 0 {
                onEvent(.received(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count])))
                continue
            }
            if count == 0 { return fail("the server closed the connection") }
            let code = errno
            if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { return }
            return fail("read: \(String(cString: strerror(code)))")
        }
    }

    private func flush() {
        let fd = descriptor
        do throws(SocketError) {
            try queue.flush { buffer throws(SocketError) -> Int in
                let sent = send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
                if sent >= 0 { return sent }
                let code = errno
                if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { return 0 }
                throw SocketError("send", code: code)
            }
        } catch {
            return fail("write: \(error.message)")
        }
        let wantWritable = !queue.isEmpty
        if wantWritable != writableInterest, let registration {
            writableInterest = wantWritable
            loop.setWritableInterest(registration, wantWritable)
        }
    }

    private func socketError() -> Int32 {
        var code: Int32 = 0
        var length = socklen_t(4)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else { return errno }
        return code
    }

    private func fail(_ reason: String) {
        close()
        onEvent(.closed(reason))
    }
}
