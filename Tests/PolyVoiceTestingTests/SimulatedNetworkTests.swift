import PolyCore
import PolyNet
import Testing

@testable import PolyVoiceTesting

/// Sends `count` numbered datagrams every 20 ms to `peer` and records what comes back.
private final class Pinger: SimulationNode {
    var local: TransportAddress
    let peer: TransportAddress
    var remaining: Int
    var nextSend: Instant = .zero
    var sequence: UInt8 = 0
    var outbox: [SimDatagram] = []
    var replies: [(SimDatagram, Instant)] = []
    var changes: [(TransportAddress, TransportAddress)] = []

    init(local: TransportAddress, peer: TransportAddress, count: Int) {
        self.local = local
        self.peer = peer
        self.remaining = count
    }

    func handle(datagram: SimDatagram, at now: Instant) { replies.append((datagram, now)) }

    func handleTimeout(at now: Instant) {
        outbox.append(SimDatagram(source: local, destination: peer, payload: [sequence]))
        sequence &+= 1
        remaining -= 1
        nextSend += .milliseconds(20)
    }

    func pollTransmit(at now: Instant) -> SimDatagram? { outbox.isEmpty ? nil : outbox.removeFirst() }

    func nextDeadline() -> Instant? { remaining > 0 ? nextSend : nil }

    func addressChanged(from old: TransportAddress, to new: TransportAddress, at now: Instant) {
        changes.append((old, new))
        local = new
    }
}

/// Sends every datagram back where it came from, recording the sources it saw.
private final class Echo: SimulationNode {
    var outbox: [SimDatagram] = []
    var seen: [(SimDatagram, Instant)] = []

    func handle(datagram: SimDatagram, at now: Instant) {
        seen.append((datagram, now))
        outbox.append(
            SimDatagram(source: datagram.destination, destination: datagram.source, payload: datagram.payload))
    }

    func handleTimeout(at now: Instant) {}
    func pollTransmit(at now: Instant) -> SimDatagram? { outbox.isEmpty ? nil : outbox.removeFirst() }
    func nextDeadline() -> Instant? { nil }
}

@Suite struct SimulatedNetworkTests {
    let clientAddress = TransportAddress(ip: IPAddress(v4: 10, 0, 0, 1), port: 5000)
    let serverAddress = TransportAddress(ip: IPAddress(v4: 10, 0, 0, 2), port: 6000)

    private func makeCall(count: Int, seed: UInt64 = 1) -> (SimulationScheduler, SimulatedNetwork, Pinger, Echo) {
        let network = SimulatedNetwork(seed: seed)
        let pinger = Pinger(local: clientAddress, peer: serverAddress, count: count)
        let echo = Echo()
        network.addHost(pinger, addresses: [clientAddress])
        network.addHost(echo, addresses: [serverAddress])
        let scheduler = SimulationScheduler()
        scheduler.add(network)
        return (scheduler, network, pinger, echo)
    }

    @Test func delaysEachDirection() {
        let (scheduler, network, pinger, echo) = makeCall(count: 5)
        let up = SimHostID(index: 0)
        let down = SimHostID(index: 1)
        network.setImpairment(LinkImpairment(delay: .milliseconds(30)), from: up, to: down)
        network.setImpairment(LinkImpairment(delay: .milliseconds(10)), from: down, to: up)
        #expect(scheduler.run(until: .seconds(10)) == .idle)
        #expect(echo.seen.map(\.1) == [30, 50, 70, 90, 110].map { Instant.milliseconds($0) })
        #expect(pinger.replies.map(\.1) == [40, 60, 80, 100, 120].map { Instant.milliseconds($0) })
        #expect(pinger.replies.map(\.0.payload) == [[0], [1], [2], [3], [4]])
        #expect(pinger.replies.allSatisfy { $0.0.source == serverAddress && $0.0.destination == clientAddress })
        #expect(network.counters.delivered == 10)
    }

    @Test func lossOnOneDirectionOnly() {
        let (scheduler, network, pinger, echo) = makeCall(count: 1000)
        network.setImpairment(
            LinkImpairment(loss: .uniform(0.2)), from: SimHostID(index: 0), to: SimHostID(index: 1))
        scheduler.run(until: .seconds(100))
        let counters = network.linkCounters(from: SimHostID(index: 0), to: SimHostID(index: 1))
        #expect(counters.offered == 1000)
        #expect(echo.seen.count == 1000 - counters.lost)
        #expect(pinger.replies.count == echo.seen.count)
        #expect((150...250).contains(counters.lost))
        #expect(network.counters.droppedByLink == counters.lost)
    }

    @Test func sameSeedSameRun() {
        func arrivals(seed: UInt64) -> [Instant] {
            let (scheduler, network, pinger, _) = makeCall(count: 300, seed: seed)
            network.defaultImpairment = LinkImpairment(
                loss: .uniform(0.05), delay: .milliseconds(20), jitter: .milliseconds(25), duplication: 0.02)
            scheduler.run(until: .seconds(100))
            return pinger.replies.map(\.1)
        }
        #expect(arrivals(seed: 9) == arrivals(seed: 9))
        #expect(arrivals(seed: 9) != arrivals(seed: 10))
    }

    @Test func addressChangeMovesTheHost() {
        let (scheduler, network, pinger, echo) = makeCall(count: 50)
        let moved = TransportAddress(ip: IPAddress(v4: 10, 0, 1, 7), port: 5000)
        network.setImpairment(
            LinkImpairment(delay: .milliseconds(50)), between: SimHostID(index: 0), and: SimHostID(index: 1))
        // At 490 ms the client moves (round trip 100 ms): replies to packets sent at 400...480 ms arrive after
        // it, at the old address, and are lost. The client's later packets come from the new address.
        network.changeAddress(of: SimHostID(index: 0), from: clientAddress, to: moved, at: .milliseconds(490))
        scheduler.run(until: .seconds(10))
        #expect(pinger.changes.count == 1)
        #expect(network.addresses(of: SimHostID(index: 0)) == [moved])
        let sources = echo.seen.map(\.0.source)
        #expect(sources.prefix(25).allSatisfy { $0 == clientAddress })
        #expect(sources.dropFirst(25).allSatisfy { $0 == moved })
        #expect(network.counters.undeliverable == 5)
        #expect(pinger.replies.count == 45)
        #expect(pinger.replies.allSatisfy { $0.1 < .milliseconds(490) || $0.0.destination == moved })
    }

    @Test func outageOnTheLinkDropsTheWindow() {
        let (scheduler, network, pinger, _) = makeCall(count: 100)
        network.setImpairment(
            LinkImpairment(outages: [Duration.milliseconds(500)..<Duration.milliseconds(1000)]),
            from: SimHostID(index: 0),
            to: SimHostID(index: 1))
        scheduler.run(until: .seconds(10))
        let sequences = Set(pinger.replies.map { Int($0.0.payload[0]) })
        #expect(sequences == Set(0..<100).subtracting(25..<50))
    }
}
