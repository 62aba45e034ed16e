import Foundation
import PolyCore
import PolyNet
import Testing

@testable import PolyVoiceTesting

/// A test's own UDP endpoint on 127.0.0.1 with a bounded wait for datagrams.
private struct Peer {
    let socket: UDPSocket
    var address: TransportAddress { socket.localAddress }

    init() throws {
        socket = try UDPSocket(bindingTo: TransportAddress(ip: .loopbackV4, port: 0))
    }

    func send(_ bytes: [UInt8], to destination: TransportAddress) { _ = try? socket.send(bytes, to: destination) }

    /// The next datagram, or nil after `milliseconds` without one.
    func receive(within milliseconds: Int32 = 1000) -> (bytes: [UInt8], from: TransportAddress)? {
        var entry = pollfd(fd: socket.fileDescriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, milliseconds) > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 2048)
        let received = bytes.withUnsafeMutableBytes { try? socket.receive(into: $0) }
        guard let (count, from) = received ?? nil else { return nil }
        return (Array(bytes.prefix(count)), from)
    }

    /// Everything that arrives until the line is quiet for `quiet` milliseconds.
    func drain(quiet: Int32 = 100) -> [[UInt8]] {
        var all: [[UInt8]] = []
        while let (bytes, _) = receive(within: quiet) { all.append(bytes) }
        return all
    }
}

private func relay(up: LinkImpairment = .perfect, down: LinkImpairment = .perfect, upstream: Peer) throws
    -> ImpairmentRelay
{
    try ImpairmentRelay(
        .init(
            listen: TransportAddress(ip: .loopbackV4, port: 0), upstream: upstream.address, up: up, down: down,
            seed: 77))
}

/// The relay publishes counters after each batch it sends: wait (at most a second) for them to settle.
private func settledCounters(_ relay: ImpairmentRelay, until done: (RelayCounters) -> Bool) -> RelayCounters {
    for _ in 0..<100 where !done(relay.counters) { usleep(10_000) }
    return relay.counters
}

private func sequence(_ bytes: [UInt8]) -> Int { Int(bytes[0]) << 8 | Int(bytes[1]) }
private func packet(_ number: Int, size: Int = 100) -> [UInt8] {
    [UInt8(number >> 8), UInt8(number & 0xFF)] + [UInt8](repeating: 0xAB, count: size - 2)
}

@Suite(.serialized) struct ImpairmentRelayTests {
    @Test func passesThroughAndRoutesRepliesBack() throws {
        let upstream = try Peer()
        let relay = try relay(upstream: upstream)
        defer { relay.stop() }
        let alice = try Peer()
        let bob = try Peer()
        #expect(relay.listenAddress.port != 0)

        alice.send(Array("hello from alice".utf8), to: relay.listenAddress)
        let first = try #require(upstream.receive())
        #expect(first.bytes == Array("hello from alice".utf8))
        #expect(first.from != alice.address)  // the relay's own socket, not the client

        bob.send(Array("hello from bob".utf8), to: relay.listenAddress)
        let second = try #require(upstream.receive())
        #expect(second.from != first.from)  // one upstream socket per client

        upstream.send(Array("to bob".utf8), to: second.from)
        upstream.send(Array("to alice".utf8), to: first.from)
        let toBob = try #require(bob.receive())
        let toAlice = try #require(alice.receive())
        #expect(toBob.bytes == Array("to bob".utf8))
        #expect(toAlice.bytes == Array("to alice".utf8))
        #expect(toAlice.from == relay.listenAddress)

        let counters = settledCounters(relay) { $0.down.forwarded == 2 }
        #expect(counters.up.received == 2 && counters.up.forwarded == 2)
        #expect(counters.down.received == 2 && counters.down.forwarded == 2)
        #expect(counters.clients == 2)
    }

    @Test func runsOnAGivenEventLoopAndLeavesItRunning() throws {
        let loop = try EventLoop(name: "relay test loop")
        defer { loop.shutdown() }
        let upstream = try Peer()
        let relay = try ImpairmentRelay(
            .init(listen: TransportAddress(ip: .loopbackV4, port: 0), upstream: upstream.address), eventLoop: loop)
        let client = try Peer()
        client.send([1, 2, 3], to: relay.listenAddress)
        #expect(upstream.receive()?.bytes == [1, 2, 3])
        relay.stop()
        client.send([4, 5, 6], to: relay.listenAddress)
        #expect(upstream.receive(within: 200) == nil)
        let stillRunning = DispatchSemaphore(value: 0)
        loop.execute { stillRunning.signal() }
        #expect(stillRunning.wait(timeout: .now() + 2) == .success)
    }

    @Test func lossRateMatchesTheModel() throws {
        let upstream = try Peer()
        let impairment = LinkImpairment(loss: .uniform(0.2))
        let relay = try relay(up: impairment, upstream: upstream)
        defer { relay.stop() }
        let client = try Peer()
        var arrived = 0
        let total = 2000
        for batch in stride(from: 0, to: total, by: 50) {
            for number in batch..<(batch + 50) { client.send(packet(number), to: relay.listenAddress) }
            arrived += upstream.drain(quiet: 30).count
        }
        let counters = settledCounters(relay) { $0.up.received == total }
        // The relay's seeded model makes exactly the decisions of the same model run offline.
        var offline = ImpairmentModel(impairment, seed: 77)
        let expectedLost = (0..<total).filter { _ in offline.decide(packetAt: .zero, size: 100).isLost }.count
        #expect(counters.up.received == total)
        #expect(counters.up.lost == expectedLost)
        #expect(arrived == total - expectedLost)
        #expect(abs(Double(expectedLost) / Double(total) - 0.2) < 0.045)
    }

    @Test func outageDropsItsWindow() throws {
        let upstream = try Peer()
        let window = Duration.milliseconds(300)..<Duration.milliseconds(600)
        let relay = try relay(up: LinkImpairment(outages: [window]), upstream: upstream)
        defer { relay.stop() }
        let client = try Peer()
        var sentAt: [Duration] = []
        for number in 0..<90 {
            sentAt.append(Instant.now() - relay.start)
            client.send(packet(number), to: relay.listenAddress)
            usleep(10_000)
        }
        let arrived = Set(upstream.drain().map(sequence))
        // Allow 15 ms either side of each edge for scheduling between the send and the relay's clock.
        for (number, offset) in sentAt.enumerated() {
            if offset >= window.lowerBound + .milliseconds(15), offset < window.upperBound - .milliseconds(15) {
                #expect(!arrived.contains(number), "packet sent at \(offset) passed during the outage")
            } else if offset < window.lowerBound - .milliseconds(15) || offset >= window.upperBound + .milliseconds(15)
            {
                #expect(arrived.contains(number), "packet sent at \(offset) was dropped outside the outage")
            }
        }
        let counters = settledCounters(relay) { $0.up.received == 90 }
        #expect(counters.up.droppedInOutage == 90 - arrived.count)
        // How many fell inside the window depends on how fast this machine sent them; count those.
        let sentInside = sentAt.filter {
            $0 >= window.lowerBound + .milliseconds(15) && $0 < window.upperBound - .milliseconds(15)
        }.count
        #expect(sentInside > 0)
        #expect(counters.up.droppedInOutage >= sentInside)
    }

    @Test func delayIsAdded() throws {
        let upstream = try Peer()
        let relay = try relay(down: LinkImpairment(delay: .milliseconds(50)), upstream: upstream)
        defer { relay.stop() }
        let client = try Peer()
        var roundTrips: [Double] = []
        for number in 0..<10 {
            let sent = Instant.now()
            client.send(packet(number), to: relay.listenAddress)
            let request = try #require(upstream.receive())
            upstream.send(request.bytes, to: request.from)
            let reply = try #require(client.receive())
            #expect(sequence(reply.bytes) == number)
            roundTrips.append((Instant.now() - sent).inMilliseconds)
        }
        roundTrips.sort()
        #expect(roundTrips[0] >= 50)  // never early
        #expect(roundTrips[5] < 80)  // and not much later (median, on a busy machine)
    }

    @Test func duplicatesEveryPacketWhenAskedTo() throws {
        let upstream = try Peer()
        let relay = try relay(up: LinkImpairment(duplication: 1), upstream: upstream)
        defer { relay.stop() }
        let client = try Peer()
        for number in 0..<20 { client.send(packet(number), to: relay.listenAddress) }
        let arrived = upstream.drain().map(sequence)
        #expect(arrived.count == 40)
        #expect(Set(arrived) == Set(0..<20))
        let counters = settledCounters(relay) { $0.up.forwarded == 40 }
        #expect(counters.up.duplicated == 20)
        #expect(counters.up.forwarded == 40)
    }

    @Test func perClientImpairmentGivesEachClientTheSameLossPattern() throws {
        let upstream = try Peer()
        let impairment = LinkImpairment(loss: .gilbertElliott(GilbertElliott(meanLoss: 0.2, meanBurstLength: 3)))
        let relay = try ImpairmentRelay(
            .init(
                listen: TransportAddress(ip: .loopbackV4, port: 0), upstream: upstream.address, up: impairment,
                seed: 77, perClient: true))
        defer { relay.stop() }
        let alice = try Peer()
        let bob = try Peer()
        let total = 400
        var arrived: [TransportAddress: Set<Int>] = [:]
        var relaySocketOf: [String: TransportAddress] = [:]
        // Interleaved, so one shared random stream would split every burst between the two.
        for batch in stride(from: 0, to: total, by: 25) {
            for number in batch..<(batch + 25) {
                alice.send(packet(number), to: relay.listenAddress)
                bob.send(packet(0x8000 | number), to: relay.listenAddress)
            }
            while let (bytes, from) = upstream.receive(within: 30) {
                let client = bytes[0] & 0x80 == 0 ? "alice" : "bob"
                relaySocketOf[client] = from
                arrived[from, default: []].insert(sequence(bytes) & 0x7FFF)
            }
        }
        let counters = settledCounters(relay) { $0.up.received == 2 * total }
        var offline = ImpairmentModel(impairment, seed: 77)
        let expectedLost = Set((0..<total).filter { _ in offline.decide(packetAt: .zero, size: 100).isLost })
        let expectedArrived = Set(0..<total).subtracting(expectedLost)
        let aliceArrived = arrived[try #require(relaySocketOf["alice"])] ?? []
        let bobArrived = arrived[try #require(relaySocketOf["bob"])] ?? []
        #expect(aliceArrived == expectedArrived)
        #expect(bobArrived == expectedArrived)
        #expect(counters.up.lost == 2 * expectedLost.count)
        #expect(counters.clients == 2)
    }
}
