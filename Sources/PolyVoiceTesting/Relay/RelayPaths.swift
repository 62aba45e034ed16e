// The relay's per-loop-thread state: the impairment of each direction and one upstream socket per client.
import Foundation
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
    /// Before this instant datagrams pass unimpaired.
    private let impairFrom: Instant
    private var upModel: ImpairmentModel
    private var downModel: ImpairmentModel
    private var clients: [TransportAddress: (socket: UDPSocket, registration: EventLoop.Registration)] = [:]
    private var listenRegistration: EventLoop.Registration?
    /// Datagrams waiting in timers per direction: while any wait, later ones wait too (keeps FIFO among equals).
    private var waiting = (up: 0, down: 0)
    private var counters = RelayCounters()
    private var stopped = false
    let published = Mutex(RelayCounters())

    init(
        loop: EventLoop, listen: UDPSocket, upstream: TransportAddress, impairFrom: Instant, up: ImpairmentModel,
        down: ImpairmentModel
    ) {
        self.loop = loop
        self.listen = listen
        self.upstream = upstream
        self.impairFrom = impairFrom
        self.upModel = up
        self.downModel = down
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
        relay(datagram, .up, via: socket, to: upstream)
    }

    /// Each client gets its own socket towards the upstream, so the upstream's replies find their way back.
    private func upstreamSocket(for client: TransportAddress) -> UDPSocket? {
        if let known = clients[client] { return known.socket }
        let any = TransportAddress(ip: upstream.family == .v4 ? .anyV4 : IPAddress("::")!, port: 0)
        guard let socket = try? UDPSocket(bindingTo: any) else { return nil }
        let registration = loop.register(socket) { [self] datagram, _ in
            guard !stopped else { return }
            relay(datagram, .down, via: listen, to: client)
        }
        clients[client] = (socket, registration)
        counters.clients = clients.count
        return socket
    }

    private func relay(
        _ datagram: UnsafeRawBufferPointer, _ direction: Direction, via socket: UDPSocket,
        to destination: TransportAddress
    ) {
        let now = Instant.now()
        let decision: ImpairmentDecision
        switch direction {
        case _ where now < impairFrom:
            decision = ImpairmentDecision(first: now, duplicate: nil)
            if direction == .up { counters.up.received += 1 } else { counters.down.received += 1 }
        case .up:
            decision = upModel.decide(packetAt: now, size: datagram.count)
            counters.up.record(received: upModel.counters)
        case .down:
            decision = downModel.decide(packetAt: now, size: datagram.count)
            counters.down.record(received: downModel.counters)
        }
        for due in decision.deliveries {
            if due <= now, waitingCount(direction) == 0 {
                send(datagram, direction, via: socket, to: destination)
            } else {
                let payload = [UInt8](datagram)  // the loop's buffer is only valid during this call
                adjustWaiting(direction, by: 1)
                loop.schedule(at: due) { [self] in
                    adjustWaiting(direction, by: -1)
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

    private func waitingCount(_ direction: Direction) -> Int { direction == .up ? waiting.up : waiting.down }

    private func adjustWaiting(_ direction: Direction, by delta: Int) {
        switch direction {
        case .up: waiting.up += delta
        case .down: waiting.down += delta
        }
    }

    private func publish() {
        let snapshot = counters
        published.withLock { $0 = snapshot }
    }
}

extension RelayDirectionCounters {
    /// Takes a received datagram and the model's running totals of what it decided.
    fileprivate mutating func record(received model: ImpairmentCounters) {
        received += 1
        lost = model.lost
        droppedInOutage = model.droppedInOutage
        duplicated = model.duplicated
    }
}
