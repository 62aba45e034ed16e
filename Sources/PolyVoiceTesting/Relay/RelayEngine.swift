// The relay's I/O loop: one thread, ppoll over its sockets, a delay queue of datagrams to send.
import Foundation
import PolyCore
import PolyNet

/// Runs on the relay's thread only; everything it owns stays there until it returns.
final class RelayEngine {
    private enum Direction { case up, down }

    private struct Pending {
        let payload: [UInt8]
        let socket: RelaySocket
        let destination: TransportAddress
        let direction: Direction
    }

    private let listen: RelaySocket
    private let upstream: TransportAddress
    private let wake: Int32
    private var upModel: ImpairmentModel
    private var downModel: ImpairmentModel
    private var clientSockets: [TransportAddress: RelaySocket] = [:]
    private var clientOf: [Int32: TransportAddress] = [:]
    private var queue = DelayQueue<Pending>()
    private var counters = RelayCounters()
    private let publish: (RelayCounters) -> Void
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 8)

    init(
        listen: RelaySocket, upstream: TransportAddress, wake: Int32, up: ImpairmentModel, down: ImpairmentModel,
        publish: @escaping (RelayCounters) -> Void
    ) {
        self.listen = listen
        self.upstream = upstream
        self.wake = wake
        self.upModel = up
        self.downModel = down
        self.publish = publish
    }

    deinit {
        buffer.deallocate()
        for socket in clientSockets.values { socket.close() }
    }

    /// Relays until a byte arrives on the wake descriptor.
    func run() {
        var descriptors: [pollfd] = []
        while true {
            descriptors.removeAll(keepingCapacity: true)
            descriptors.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0))
            descriptors.append(pollfd(fd: listen.descriptor, events: Int16(POLLIN), revents: 0))
            for socket in clientSockets.values {
                descriptors.append(pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0))
            }
            // poll counts whole milliseconds: round up so a datagram is never sent early.
            var timeout: Int32 = 1000
            if let due = queue.nextDue {
                let wait = max(due.nanoseconds - Instant.now().nanoseconds, 0)
                timeout = Int32(min((wait + 999_999) / 1_000_000, 1000))
            }
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if ready > 0 {
                if descriptors[0].revents != 0 {
                    publish(counters)
                    return
                }
                for entry in descriptors.dropFirst() where entry.revents != 0 {
                    drain(entry.fd)
                }
            }
            flush(at: Instant.now())
            publish(counters)
        }
    }

    private func drain(_ descriptor: Int32) {
        if descriptor == listen.descriptor {
            while let (count, client) = listen.receive(into: buffer) {
                guard let socket = upstreamSocket(for: client) else { continue }
                enqueue(count: count, via: socket, to: upstream, direction: .up)
            }
        } else if let client = clientOf[descriptor], let socket = clientSockets[client] {
            while let (count, _) = socket.receive(into: buffer) {
                enqueue(count: count, via: listen, to: client, direction: .down)
            }
        }
    }

    /// Each client gets its own upstream socket so the upstream's replies can be routed back to it.
    private func upstreamSocket(for client: TransportAddress) -> RelaySocket? {
        if let socket = clientSockets[client] { return socket }
        let any = TransportAddress(ip: upstream.family == .v4 ? .anyV4 : IPAddress("::")!, port: 0)
        guard let socket = try? RelaySocket.bind(any) else { return nil }
        clientSockets[client] = socket
        clientOf[socket.descriptor] = client
        counters.clients = clientSockets.count
        return socket
    }

    private func enqueue(count: Int, via socket: RelaySocket, to destination: TransportAddress, direction: Direction) {
        let now = Instant.now()
        let decision: ImpairmentDecision
        switch direction {
        case .up:
            decision = upModel.decide(packetAt: now, size: count)
            counters.up.received += 1
            counters.up.lost = upModel.counters.lost
            counters.up.droppedInOutage = upModel.counters.droppedInOutage
            counters.up.duplicated = upModel.counters.duplicated
        case .down:
            decision = downModel.decide(packetAt: now, size: count)
            counters.down.received += 1
            counters.down.lost = downModel.counters.lost
            counters.down.droppedInOutage = downModel.counters.droppedInOutage
            counters.down.duplicated = downModel.counters.duplicated
        }
        guard !decision.isLost else { return }
        let payload = Array(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        for due in decision.deliveries {
            queue.insert(
                Pending(payload: payload, socket: socket, destination: destination, direction: direction), due: due)
        }
    }

    private func flush(at now: Instant) {
        while let (_, pending) = queue.popDue(at: now) {
            pending.socket.send(pending.payload, to: pending.destination)
            switch pending.direction {
            case .up: counters.up.forwarded += 1
            case .down: counters.down.forwarded += 1
            }
        }
    }
}
