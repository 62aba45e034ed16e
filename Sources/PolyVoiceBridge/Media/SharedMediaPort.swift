// The I/O shell of a bridge's shared media port: one UDP socket on the event loop for the media of
// every call, each call reached through a `MediaDatagramLink` and routed by `MediaPortDemux`.
import PolyCore
import PolyNet
import PolySession

/// What a shared media port delivered and dropped (for tests and diagnostics).
public struct SharedMediaPortCounters: Sendable, Equatable {
    public var delivered: UInt64 = 0
    public var droppedUnknownUfrag: UInt64 = 0
    public var droppedUnknownSource: UInt64 = 0
    public var droppedMalformed: UInt64 = 0
    public init() {}
}

/// One UDP socket serving the media of every call of a bridge (`BridgeConfiguration.mediaPort`).
///
/// Calls get a link each (`makeLink()`). A STUN binding request reaches the call whose current (or, during
/// an ICE restart, previous) local ufrag its USERNAME names; when the call answers it with a success
/// response, the remote address is mapped to the call and its DTLS, SRTP and SRTCP follow that mapping.
/// Anything else is dropped and counted. Sendable: the table and counters are touched on the loop thread only.
public final class SharedMediaPort: @unchecked Sendable {
    public let loop: EventLoop
    /// The bound address (port chosen by the kernel when bound to port 0).
    public let localAddress: TransportAddress
    private let socket: UDPSocket
    private var registration: EventLoop.Registration?

    // Loop thread only.
    private var demux = MediaPortDemux()
    private var receivers: [MediaPortDemux.CallID: EventLoop.DatagramHandler] = [:]
    private var nextID: MediaPortDemux.CallID = 0
    private var counters = SharedMediaPortCounters()
    private var closed = false

    /// Binds `address` (port 0 picks a free one) and starts receiving on `loop`.
    public init(bindingTo address: TransportAddress, loop: EventLoop = .shared) throws(SocketError) {
        self.loop = loop
        // Every call's packets share this socket: larger kernel buffers absorb bursts of many calls.
        socket = try UDPSocket(bindingTo: address, receiveBufferSize: 4 << 20, sendBufferSize: 4 << 20)
        localAddress = socket.localAddress
        registration = loop.register(socket) { [weak self] datagram, source in self?.received(datagram, from: source) }
    }

    deinit { socket.close() }

    /// A new call's path through this port (nothing is delivered to it before `open` and a ufrag).
    public func makeLink() -> any MediaDatagramLink { Link(port: self) }

    /// A snapshot of the counters.
    public func counters() async -> SharedMediaPortCounters {
        await withCheckedContinuation { continuation in
            loop.execute { [self] in continuation.resume(returning: counters) }
        }
    }

    /// Stops receiving and closes the socket (after the calls are closed). Idempotent.
    public func close() {
        loop.execute { [self] in
            guard !closed else { return }
            closed = true
            if let registration { loop.unregister(registration) }
            registration = nil
            receivers.removeAll()
            socket.close()
        }
    }

    // MARK: Loop thread

    private func received(_ datagram: UnsafeRawBufferPointer, from source: TransportAddress) {
        switch demux.route(datagram, from: source) {
        case .call(let id):
            guard let receive = receivers[id] else {
                counters.droppedUnknownSource += 1
                return
            }
            counters.delivered += 1
            receive(datagram, source)
        case .drop(.unknownUfrag): counters.droppedUnknownUfrag += 1
        case .drop(.unknownSource): counters.droppedUnknownSource += 1
        case .drop(.malformed): counters.droppedMalformed += 1
        }
    }

    fileprivate func open(_ id: MediaPortDemux.CallID, receive: @escaping EventLoop.DatagramHandler) {
        guard !closed else { return }
        receivers[id] = receive
    }

    fileprivate func send(
        _ bytes: UnsafeRawBufferPointer, to destination: TransportAddress, from id: MediaPortDemux.CallID
    ) {
        guard !closed else { return }
        if MediaPortDemux.isBindingSuccess(bytes) { demux.checkSucceeded(call: id, remote: destination) }
        _ = try? socket.send(bytes, to: destination)
    }

    fileprivate func setUfrag(_ ufrag: String, for id: MediaPortDemux.CallID) {
        guard !closed, receivers[id] != nil else { return }
        demux.setUfrag(ufrag, for: id)
    }

    fileprivate func remove(_ id: MediaPortDemux.CallID) {
        receivers.removeValue(forKey: id)
        demux.remove(call: id)
    }

    fileprivate func takeID() -> MediaPortDemux.CallID {
        nextID += 1
        return nextID
    }

    /// One call's view of the port. Its methods run on the loop thread (MediaDatagramLink's contract).
    private final class Link: MediaDatagramLink, @unchecked Sendable {
        private let port: SharedMediaPort
        private var id: MediaPortDemux.CallID?

        init(port: SharedMediaPort) { self.port = port }

        var loop: EventLoop { port.loop }
        var localAddress: TransportAddress { port.localAddress }

        func open(receive: @escaping EventLoop.DatagramHandler) {
            guard id == nil else { return }
            let id = port.takeID()
            self.id = id
            port.open(id, receive: receive)
        }

        func send(_ bytes: UnsafeRawBufferPointer, to destination: TransportAddress) {
            guard let id else { return }
            port.send(bytes, to: destination, from: id)
        }

        func setLocalUfrag(_ ufrag: String) {
            guard let id else { return }
            port.setUfrag(ufrag, for: id)
        }

        func close() {
            guard let id else { return }
            port.remove(id)
            self.id = nil
        }
    }
}
