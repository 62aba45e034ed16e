// The I/O shell of a bridge's shared media port: one UDP socket on the event loop for the media of
// every call, each call reached through a `MediaDatagramLink` and routed by `MediaPortDemux`.
import PolyCore
import PolyNet
import PolySession
import Synchronization

/// What a shared media port delivered and dropped (`/metrics`, tests and diagnostics).
public struct SharedMediaPortCounters: Sendable, Equatable {
    /// Datagrams handed to a call.
    public var delivered: UInt64 = 0
    /// STUN binding requests whose USERNAME names no current call.
    public var droppedUnknownUfrag: UInt64 = 0
    /// Anything else from an address no successful check mapped (the sum of the kinds below).
    public var droppedUnknownSource: UInt64 = 0
    /// STUN-looking datagrams that do not parse, or binding requests without a `local:remote` USERNAME.
    public var droppedMalformed: UInt64 = 0
    /// `droppedUnknownSource` by what the datagram looked like (RFC 7983 first byte): STUN that is not a
    /// binding request, DTLS (e.g. a ClientHello), RTP, RTCP, anything else (ZRTP, TURN channels, noise).
    public var unknownSourceSTUN: UInt64 = 0
    public var unknownSourceDTLS: UInt64 = 0
    public var unknownSourceRTP: UInt64 = 0
    public var unknownSourceRTCP: UInt64 = 0
    public var unknownSourceOther: UInt64 = 0
    public init() {}

    /// Every datagram dropped by the port.
    public var dropped: UInt64 { droppedUnknownUfrag + droppedUnknownSource + droppedMalformed }
}

/// The port's counters as atomics: written on the loop thread (uncontended, relaxed), read from any
/// thread by `/metrics` without a hop onto the loop.
private final class AtomicPortCounters: Sendable {
    let delivered = Atomic<UInt64>(0)
    let unknownUfrag = Atomic<UInt64>(0)
    let malformed = Atomic<UInt64>(0)
    let stun = Atomic<UInt64>(0)
    let dtls = Atomic<UInt64>(0)
    let rtp = Atomic<UInt64>(0)
    let rtcp = Atomic<UInt64>(0)
    let other = Atomic<UInt64>(0)

    func unknownSource(_ datagram: UnsafeRawBufferPointer) {
        switch DatagramKind.classify(datagram) {
        case .stun: stun.wrappingAdd(1, ordering: .relaxed)
        case .dtls: dtls.wrappingAdd(1, ordering: .relaxed)
        case .rtp: rtp.wrappingAdd(1, ordering: .relaxed)
        case .rtcp: rtcp.wrappingAdd(1, ordering: .relaxed)
        case .zrtp, .turnChannel, .unknown: other.wrappingAdd(1, ordering: .relaxed)
        }
    }

    var snapshot: SharedMediaPortCounters {
        var counters = SharedMediaPortCounters()
        counters.delivered = delivered.load(ordering: .relaxed)
        counters.droppedUnknownUfrag = unknownUfrag.load(ordering: .relaxed)
        counters.droppedMalformed = malformed.load(ordering: .relaxed)
        counters.unknownSourceSTUN = stun.load(ordering: .relaxed)
        counters.unknownSourceDTLS = dtls.load(ordering: .relaxed)
        counters.unknownSourceRTP = rtp.load(ordering: .relaxed)
        counters.unknownSourceRTCP = rtcp.load(ordering: .relaxed)
        counters.unknownSourceOther = other.load(ordering: .relaxed)
        counters.droppedUnknownSource =
            counters.unknownSourceSTUN + counters.unknownSourceDTLS + counters.unknownSourceRTP
            + counters.unknownSourceRTCP + counters.unknownSourceOther
        return counters
    }
}

/// One UDP socket serving the media of every call of a bridge (`BridgeConfiguration.mediaPort`).
///
/// Calls get a link each (`makeLink()`). A STUN binding request reaches the call whose current (or, during
/// an ICE restart, previous) local ufrag its USERNAME names; when the call answers it with a success
/// response, the remote address is mapped to the call and its DTLS, SRTP and SRTCP follow that mapping.
/// Anything else is dropped and counted, without creating any state (no DTLS, no ICE, no answer to a
/// STUN request naming no call), and reported in the log at most once per `dropReportInterval`.
/// Sendable: the table is touched on the loop thread only; the counters are atomics.
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
    private let cells = AtomicPortCounters()
    private var closed = false
    private let logger: Logger?
    /// Drops so far when the log last reported them, and when (loop thread only).
    private var reportedDrops: UInt64 = 0
    private var lastDropReport: Instant?
    /// At most one log line about dropped datagrams per this interval, however many arrive.
    public static let dropReportInterval: Duration = .seconds(10)

    /// Binds `address` (port 0 picks a free one) and starts receiving on `loop`. Drops are summarised on
    /// `logger` (rate-limited), never logged one by one.
    public init(
        bindingTo address: TransportAddress, loop: EventLoop = .shared, logger: Logger? = nil
    ) throws(SocketError) {
        self.loop = loop
        self.logger = logger
        // Every call's packets share this socket: larger kernel buffers absorb bursts of many calls.
        socket = try UDPSocket(bindingTo: address, receiveBufferSize: 4 << 20, sendBufferSize: 4 << 20)
        localAddress = socket.localAddress
        registration = loop.register(socket) { [weak self] datagram, source in self?.received(datagram, from: source) }
    }

    deinit { socket.close() }

    /// A new call's path through this port (nothing is delivered to it before `open` and a ufrag).
    public func makeLink() -> any MediaDatagramLink { Link(port: self) }

    /// A snapshot of the counters, after the datagrams the loop has already taken in.
    public func counters() async -> SharedMediaPortCounters {
        await withCheckedContinuation { continuation in
            loop.execute { [self] in continuation.resume(returning: cells.snapshot) }
        }
    }

    /// The counters now, from any thread (`/metrics`).
    public var currentCounters: SharedMediaPortCounters { cells.snapshot }

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
                cells.unknownSource(datagram)
                return noteDrop()
            }
            cells.delivered.wrappingAdd(1, ordering: .relaxed)
            receive(datagram, source)
            return
        case .drop(.unknownUfrag): cells.unknownUfrag.wrappingAdd(1, ordering: .relaxed)
        case .drop(.unknownSource): cells.unknownSource(datagram)
        case .drop(.malformed): cells.malformed.wrappingAdd(1, ordering: .relaxed)
        }
        noteDrop()
    }

    /// One summary line per `dropReportInterval` at most (a flood must not become a flood of log lines).
    private func noteDrop() {
        guard let logger else { return }
        let now = Instant.now()
        if let last = lastDropReport, now - last < Self.dropReportInterval { return }
        let counters = cells.snapshot
        let dropped = counters.dropped
        lastDropReport = now
        defer { reportedDrops = dropped }
        logger.warn(
            "media port \(localAddress): dropped \(dropped - reportedDrops) datagrams since the last report "
                + "(totals: unknown ufrag \(counters.droppedUnknownUfrag), unknown source "
                + "\(counters.droppedUnknownSource), malformed STUN \(counters.droppedMalformed))")
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
