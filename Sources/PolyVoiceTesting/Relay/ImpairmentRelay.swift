// A real UDP relay that impairs traffic like netem would, for tests on sockets (this kernel has no netem).
import Foundation
import PolyCore
import PolyNet
import Synchronization

/// Forwards UDP between clients and one upstream address, applying an `ImpairmentModel` per direction in
/// real time. Clients send to `listenAddress`; each client gets its own socket towards the upstream so
/// replies come back to it through the relay (as through a 1:1 NAT). Runs on its own thread until `stop()`.
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

        public init(
            listen: TransportAddress, upstream: TransportAddress, up: LinkImpairment = .perfect,
            down: LinkImpairment = .perfect, seed: UInt64 = 1
        ) {
            self.listen = listen
            self.upstream = upstream
            self.up = up
            self.down = down
            self.seed = seed
        }
    }

    /// The address clients send to (the actual port when the configuration asked for port 0).
    public let listenAddress: TransportAddress
    public let configuration: Configuration
    /// Instant the outage windows are measured from (the relay's start).
    public let start: Instant

    private let shared = SharedCounters()
    private let wakeWriter: Int32
    private let finished = DispatchSemaphore(value: 0)
    private let stopped = Mutex(false)

    /// Binds the listening socket and starts relaying; throws if the socket cannot be set up.
    public init(_ configuration: Configuration) throws(RelaySocketError) {
        let listen = try RelaySocket.bind(configuration.listen)
        guard let bound = listen.localAddress() else {
            listen.close()
            throw RelaySocketError(operation: "getsockname", code: errno)
        }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            listen.close()
            throw RelaySocketError(operation: "pipe", code: errno)
        }
        self.configuration = configuration
        self.listenAddress = bound
        self.wakeWriter = pipeEnds[1]
        let start = Instant.now()
        self.start = start
        let wakeReader = pipeEnds[0]
        let upModel = ImpairmentModel(configuration.up, seed: configuration.seed, start: start)
        let downModel = ImpairmentModel(configuration.down, seed: configuration.seed &+ 0x5DEE_CE66, start: start)
        let thread = Thread { [shared, finished, listen, upstream = configuration.upstream] in
            let engine = RelayEngine(
                listen: listen, upstream: upstream, wake: wakeReader, up: upModel, down: downModel,
                publish: { counters in shared.value.withLock { $0 = counters } })
            engine.run()
            listen.close()
            close(wakeReader)
            finished.signal()
        }
        thread.name = "ImpairmentRelay \(bound)"
        thread.start()
    }

    deinit { stop() }

    /// A snapshot of the counters (updated after every batch of datagrams).
    public var counters: RelayCounters { shared.value.withLock { $0 } }

    /// Stops relaying and waits for the thread to close its sockets. Safe to call more than once.
    public func stop() {
        let wasStopped = stopped.withLock { value in
            defer { value = true }
            return value
        }
        guard !wasStopped else { return }
        var byte: UInt8 = 1
        _ = write(wakeWriter, &byte, 1)
        finished.wait()
        close(wakeWriter)
    }
}

/// The counters the relay's thread publishes and any thread reads.
private final class SharedCounters: Sendable {
    let value = Mutex(RelayCounters())
}
