// A real UDP relay that impairs traffic like netem would, for tests on sockets (this kernel has no netem).
import Dispatch
import PolyCore
import PolyNet
import Synchronization

/// Forwards UDP between clients and one upstream address, applying an `ImpairmentModel` per direction in
/// real time. Clients send to `listenAddress`; each client gets its own socket towards the upstream so
/// replies come back to it through the relay (as through a 1:1 NAT). Runs on an `EventLoop` until `stop()`.
public final class ImpairmentRelay: Sendable {
    /// Where to listen, where to forward, and what to do to the traffic.
    public struct Configuration: Sendable {
        /// Address clients send to (port 0: any free port; see `listenAddress`).
        public var listen: TransportAddress
        /// Address datagrams are forwarded to (e.g. the bridge's real media port).
        public var upstream: TransportAddress
        /// Impairment of client → upstream traffic.
        public var up: LinkImpairment
        /// Impairment of upstream → client traffic.
        public var down: LinkImpairment
        /// Seed of the random streams (each direction derives its own).
        public var seed: UInt64
        /// Traffic during this long after the relay's start passes unimpaired (e.g. a call's set-up, when
        /// only the media should be impaired). Outage windows are still measured from the start.
        public var impairAfter: Duration
        /// Each client gets its own copy of the impairment, seeded alike and started at the client's first
        /// datagram (`impairAfter` and outages count from there): concurrent clients then see the same loss
        /// pattern and delays, packet for packet, instead of sharing one random stream (where a burst would be
        /// split between them). False: one impairment for all, started with the relay.
        public var perClient: Bool

        public init(
            listen: TransportAddress, upstream: TransportAddress, up: LinkImpairment = .perfect,
            down: LinkImpairment = .perfect, seed: UInt64 = 1, impairAfter: Duration = .zero, perClient: Bool = false
        ) {
            self.listen = listen
            self.upstream = upstream
            self.up = up
            self.down = down
            self.seed = seed
            self.impairAfter = impairAfter
            self.perClient = perClient
        }
    }

    /// The address clients send to (the actual port when the configuration asked for port 0).
    public let listenAddress: TransportAddress
    public let configuration: Configuration
    /// Instant the outage windows are measured from (the relay's start; per client: its first datagram).
    public let start: Instant

    private let loop: EventLoop
    private let ownsLoop: Bool
    private let listen: UDPSocket
    private let paths: RelayPaths
    private let stopped = Mutex(false)

    /// Binds the listening socket and starts relaying on `eventLoop`, or on a loop of its own when nil
    /// (the default: the relay's timing then does not depend on the code under test).
    public init(_ configuration: Configuration, eventLoop: EventLoop? = nil) throws(SocketError) {
        let listen = try UDPSocket(bindingTo: configuration.listen)
        if let eventLoop {
            loop = eventLoop
            ownsLoop = false
        } else {
            loop = try EventLoop(name: "ImpairmentRelay \(listen.localAddress)")
            ownsLoop = true
        }
        self.listen = listen
        self.configuration = configuration
        listenAddress = listen.localAddress
        start = Instant.now()
        paths = RelayPaths(loop: loop, listen: listen, configuration: configuration, start: start)
        paths.start()
    }

    deinit { stop() }

    /// A snapshot of the counters.
    public var counters: RelayCounters { paths.published.withLock { $0 } }

    /// Stops relaying (datagrams still delayed inside are dropped) and closes the sockets. Idempotent.
    /// Waits for the event loop: call it from outside the loop's thread.
    public func stop() {
        let wasStopped = stopped.withLock { value in
            defer { value = true }
            return value
        }
        guard !wasStopped else { return }
        let done = DispatchSemaphore(value: 0)
        loop.execute { [paths] in
            paths.stop()
            done.signal()
        }
        done.wait()
        if ownsLoop { loop.shutdown() }
        listen.close()
    }
}
