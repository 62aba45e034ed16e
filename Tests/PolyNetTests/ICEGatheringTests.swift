import PolyCore
import Testing

@testable import PolyNet

@Suite struct ICEGatheringTests {
    typealias F = ICEFixtures
    static let server = TransportAddress("198.51.100.1:3478")!
    static let public1 = TransportAddress("203.0.113.7:61000")!

    func gatheredAt(_ net: ICETestNetwork) -> Instant? {
        net.events[0].first { if case .gatheringComplete = $0.1 { true } else { false } }?.0
    }

    @Test func hostAndServerReflexiveCandidates() throws {
        var configuration = F.configuration(seed: 1)
        configuration.stunServers = [Self.server]
        var net = ICETestNetwork([ICEAgent(configuration: configuration)])
        net.stunServers[Self.server] = { _ in Self.public1 }
        net.handle(0, .gather(localAddresses: [F.clientAddress]))
        net.run(for: .seconds(3))
        let candidates = net.agents[0].localCandidates
        #expect(candidates.map(\.kind) == [.host, .serverReflexive])
        let srflx = candidates[1]
        #expect(srflx.address == Self.public1 && srflx.relatedAddress == F.clientAddress)
        #expect(srflx.priority < candidates[0].priority)
        // The server answered after 10 ms: no transaction pending any more, so gathering ends at once.
        #expect(gatheredAt(net) == .milliseconds(10))
        guard
            case .gatheringComplete(let all) = net.events[0].last(where: {
                if case .gatheringComplete = $0.1 { true } else { false }
            })?.1
        else {
            Issue.record("no gatheringComplete")
            return
        }
        #expect(all == candidates)
    }

    @Test func silentServerEndsGathering200msAfterLastCandidate() {
        var configuration = F.configuration(seed: 1)
        configuration.stunServers = [Self.server]
        var net = ICETestNetwork([ICEAgent(configuration: configuration)])
        net.drop = { $0.to == Self.server }
        net.handle(0, .gather(localAddresses: [F.clientAddress]))
        net.run(for: .seconds(3))
        #expect(gatheredAt(net) == .milliseconds(200))
        #expect(net.agents[0].localCandidates.count == 1)
    }

    @Test func noServersEndsGatheringImmediately() {
        var net = ICETestNetwork([ICEAgent(configuration: F.configuration(seed: 1))])
        net.handle(0, .gather(localAddresses: [F.clientAddress]))
        #expect(gatheredAt(net) == .zero)
    }

    @Test func steadyTrickleOfCandidatesIsCappedAtTwoSeconds() {
        var configuration = F.configuration(seed: 1)
        let servers = (1...4).map { TransportAddress(ip: IPAddress(v4: 198, 51, 100, UInt8($0)), port: 3478) }
        configuration.stunServers = servers
        var net = ICETestNetwork([ICEAgent(configuration: configuration)])
        // A symmetric NAT: a new public port per request, answers 150 ms apart.
        var port: UInt16 = 40000
        for server in servers {
            net.stunServers[server] = { _ in
                port += 1
                return TransportAddress(ip: IPAddress(v4: 203, 0, 113, 7), port: port)
            }
        }
        net.stunServerDelay = { .milliseconds(150 * $0) }
        let bases = (0..<4).map { TransportAddress(ip: IPAddress(v4: 192, 168, 1, 10), port: UInt16(50000 + $0)) }
        net.handle(0, .gather(localAddresses: bases))
        net.run(for: .seconds(4))
        #expect(gatheredAt(net) == .seconds(2))
        let srflx = net.agents[0].localCandidates.filter { $0.kind == .serverReflexive }
        #expect(srflx.count == 13)  // answers at 150 ms … 1950 ms arrive in time; later ones are dropped
    }
}
