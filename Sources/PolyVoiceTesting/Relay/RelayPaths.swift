// The relay's per-loop-thread state: the impairment of each direction (shared by all clients, or one copy per
// client) and one upstream socket per client.
import PolyCore
import PolyNet
import Synchronization

/// Everything the relay changes while relaying. Touched only on its event loop's thread (handlers and
/// timers run there one at a time), hence `@unchecked Sendable`; `published` is the only shared part.
final class RelayPaths: @unchecked Sendable {
    enum Direction { case up, down }

    private let loop: EventLoop
    private let listen: UDPSocket
    private let upstream: TransportAddress
    private let configuration: ImpairmentRelay.Configuration
    /// The impairment every client shares (nil when each client has its own: `Configuration.perClient`).
    private var shared: PathImpairment?
    private var clients: [TransportAddress: ClientPath] = [:]
    private var listenRegistration: EventLoop.Registration?
    private var counters = RelayCounters()
    private var stopped = false
    let published = Mutex(RelayCounters())

    /// One client's socket towards the upstream (and its own impairment with `Configuration.perClient`).
    private struct ClientPath {
        var socket: UDPSocket
        var registration: EventLoop.Registration
        var impairment: PathImpairment?
    }

    /// `start`: the relay's start, from which the shared impairment's outages and `impairAfter` count.
    init(loop: EventLoop, listen: UDPSocket, configuration: ImpairmentRelay.Configuration, start: Instant) {
        self.loop = loop
        self.listen = listen
        self.upstream = configuration.upstream
        self.configuration = configuration
        if !configuration.perClient { shared = PathImpairment(configuration, start: start) }
    }

    /// Starts receiving on the listening socket (call once, from any thread).
    func start() {
        let registration = loop.register(listen) { [self] datagram, client in
            fromClient(datagram, client)
        }
        loop.execute { [self] in listenRegistration = registration }
    }

    /// Stops receiving and sending and closes the client sockets (on the loop thread).
    func stop() {
        stopped = true
        if let listenRegistration { loop.unregister(listenRegistration) }
        for client in clients.values {
            loop.unregister(client.registration)
            client.socket.close()
        }
        clients.removeAll()
        publish()
    }

    private func fromClient(_ datagram: UnsafeRawBufferPointer, _ client: TransportAddress) {
        guard !stopped, let socket = upstreamSocket(for: client) else { return }
        relay(datagram, .up, of: client, via: socket, to: upstream)
    }

    /// Each client gets its own socket towards the upstream, so the upstream's replies find their way back.
    private func upstreamSocket(for client: TransportAddress) -> UDPSocket? {
        if let known = clients[client] { return known.socket }
        let any = TransportAddress(ip: upstream.family == .v4 ? .anyV4 : IPAddress("::")!, port: 0)
        guard let socket = try? UDPSocket(bindingTo: any) else { return nil }
        let registration = loop.register(socket) { [self] datagram, _ in
            guard !stopped else { return }
            relay(datagram, .down, of: client, via: listen, to: client)
        }
        // Per client, the impairment starts with the client's first datagram (outages and `impairAfter` too).
        let own = configuration.perClient ? PathImpairment(configuration, start: Instant.now()) : nil
        clients[client] = ClientPath(socket: socket, registration: registration, impairment: own)
        counters.clients = clients.count
        return socket
    }

    private func relay(
        _ datagram: UnsafeRawBufferPointer, _ direction: Direction, of client: TransportAddress,
        via socket: UDPSocket, to destination: TransportAddress
    ) {
        let now = Instant.now()
        // Exactly one of the two is set: the client's own impairment or the shared one.
        guard
            let decision = clients[client]?.impairment?.decide(
                direction, at: now, size: datagram.count, counters: &counters)
                ?? shared?.decide(direction, at: now, size: datagram.count, counters: &counters)
        else { return }
        for due in decision.deliveries {
            if due <= now, !isWaiting(direction, of: client) {
                send(datagram, direction, via: socket, to: destination)
            } else {
                let payload = [UInt8](datagram)  // the loop's buffer is only valid during this call
                adjustWaiting(direction, of: client, by: 1)
                loop.schedule(at: due) { [self] in
                    adjustWaiting(direction, of: client, by: -1)
                    guard !stopped else { return }
                    payload.withUnsafeBytes { send($0, direction, via: socket, to: destination) }
                }
            }
        }
        publish()
    }

    private func send(
        _ datagram: UnsafeRawBufferPointer, _ direction: Direction, via socket: UDPSocket,
        to destination: TransportAddress
    ) {
        // A full buffer or an unreachable peer loses the datagram, as UDP may.
        _ = try? socket.send(datagram, to: destination)
        switch direction {
        case .up: counters.up.forwarded += 1
        case .down: counters.down.forwarded += 1
        }
        publish()
    }

    private func isWaiting(_ direction: Direction, of client: TransportAddress) -> Bool {
        (clients[client]?.impairment ?? shared)?.isWaiting(direction) ?? false
    }

    /// Counts a datagram into or out of the timers of the impairment that delayed it.
    private func adjustWaiting(_ direction: Direction, of client: TransportAddress, by delta: Int) {
        if clients[client]?.impairment != nil {
            clients[client]?.impairment?.adjustWaiting(direction, by: delta)
        } else {
            shared?.adjustWaiting(direction, by: delta)
        }
    }

    private func publish() {
        let snapshot = counters
        published.withLock { $0 = snapshot }
    }
}

/// One impairment of both directions: the models, when impairing begins, and the datagrams in timers.
private struct PathImpairment {
    var up: ImpairmentModel
    var down: ImpairmentModel
    /// Before this instant datagrams pass unimpaired.
    let impairFrom: Instant
    /// Datagrams waiting in timers per direction: while any wait, later ones wait too (keeps FIFO among equals).
    var waiting = (up: 0, down: 0)

    init(_ configuration: ImpairmentRelay.Configuration, start: Instant) {
        up = ImpairmentModel(configuration.up, seed: configuration.seed, start: start)
        down = ImpairmentModel(configuration.down, seed: configuration.seed &+ 0x5DEE_CE66, start: start)
        impairFrom = start + configuration.impairAfter
    }

    /// The fate of one datagram; adds what the model did to `counters`.
    mutating func decide(
        _ direction: RelayPaths.Direction, at now: Instant, size: Int, counters: inout RelayCounters
    ) -> ImpairmentDecision {
        guard now >= impairFrom else {
            if direction == .up { counters.up.received += 1 } else { counters.down.received += 1 }
            return ImpairmentDecision(first: now, duplicate: nil)
        }
        switch direction {
        case .up:
            let before = up.counters
            let decision = up.decide(packetAt: now, size: size)
            counters.up.record(received: up.counters, since: before)
            return decision
        case .down:
            let before = down.counters
            let decision = down.decide(packetAt: now, size: size)
            counters.down.record(received: down.counters, since: before)
            return decision
        }
    }

    func isWaiting(_ direction: RelayPaths.Direction) -> Bool { (direction == .up ? waiting.up : waiting.down) > 0 }

    mutating func adjustWaiting(_ direction: RelayPaths.Direction, by delta: Int) {
        switch direction {
        case .up: waiting.up += delta
        case .down: waiting.down += delta
        }
    }
}

extension RelayDirectionCounters {
    /// Takes a received datagram and what the model decided for it (its totals before and after).
    fileprivate mutating func record(received model: ImpairmentCounters, since before: ImpairmentCounters) {
        received += 1
        lost += model.lost - before.lost
        droppedInOutage += model.droppedInOutage - before.droppedInOutage
        duplicated += model.duplicated - before.duplicated
    }
}
