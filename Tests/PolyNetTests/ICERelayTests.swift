// Relay candidates from the shell's TURN allocations: gathering waits for them, they pair like hosts, and a
// client whose direct path is blocked connects through one.
import PolyCore
import Testing

@testable import PolyNet

@Suite struct ICERelayTests {
    typealias F = ICEFixtures
    static let turnServer = TransportAddress("198.51.100.9:3478")!
    static let relayed = TransportAddress("198.51.100.9:49152")!
    static let mapped = TransportAddress("203.0.113.7:61000")!

    func gatheredAt(_ net: ICETestNetwork) -> Instant? {
        net.events[0].first { if case .gatheringComplete = $0.1 { true } else { false } }?.0
    }

    @Test func gatheringWaitsForAPendingAllocationAndTakesItsRelayCandidate() throws {
        var net = ICETestNetwork([ICEAgent(configuration: F.configuration(seed: 1))])
        net.handle(0, .pendingRelays(1))
        net.handle(0, .gather(localAddresses: [F.clientAddress]))
        // Without a pending relay and without STUN servers gathering ends at once (ICEGatheringTests).
        #expect(gatheredAt(net) == nil)
        net.run(for: .milliseconds(30))
        net.handle(
            0,
            .relayCandidate(relayed: Self.relayed, mapped: Self.mapped, server: Self.turnServer, localPreference: 65535)
        )
        #expect(gatheredAt(net) == nil)
        net.handle(0, .pendingRelays(0))
        #expect(gatheredAt(net) == .milliseconds(30))
        let candidates = net.agents[0].localCandidates
        #expect(candidates.map(\.kind) == [.host, .relay])
        let relay = candidates[1]
        #expect(relay.address == Self.relayed && relay.relatedAddress == Self.mapped)
        #expect(relay.priority >> 24 == 0 && relay.priority < candidates[0].priority)
    }

    @Test func aPendingAllocationStillEndsAtTheQuietTime() {
        var net = ICETestNetwork([ICEAgent(configuration: F.configuration(seed: 1))])
        net.handle(0, .pendingRelays(1))
        net.handle(0, .gather(localAddresses: [F.clientAddress]))
        net.run(for: .seconds(1))
        // PROTOCOL.md: 200 ms without a new candidate once one exists; a slow TURN server cannot hold the offer.
        #expect(gatheredAt(net) == .milliseconds(200))
        net.handle(
            0, .relayCandidate(relayed: Self.relayed, mapped: nil, server: Self.turnServer, localPreference: 65535))
        #expect(net.agents[0].localCandidates.map(\.kind) == [.host])
    }

    @Test func relayOnlyGathersNoHostAndEndsAsSoonAsTheLastAllocationFailed() {
        var configuration = F.configuration(seed: 1)
        configuration.relayOnly = true
        var net = ICETestNetwork([ICEAgent(configuration: configuration)])
        net.handle(0, .pendingRelays(1))
        net.handle(0, .gather(localAddresses: [F.clientAddress]))
        net.run(for: .milliseconds(40))
        #expect(gatheredAt(net) == nil)
        net.handle(0, .pendingRelays(0))  // the allocation failed
        #expect(gatheredAt(net) == .milliseconds(40))
        #expect(net.agents[0].localCandidates.isEmpty)
    }

    /// A client (host and relay candidate) and a lite bridge that have exchanged parameters, run for 3 s.
    static func clientWithRelayAndBridge(drop: @escaping (ICETestNetwork.Packet) -> Bool = { _ in false })
        -> ICETestNetwork
    {
        var net = ICETestNetwork([
            ICEAgent(configuration: F.configuration(seed: 1)),
            ICEAgent(configuration: F.configuration(mode: .lite, seed: 2)),
        ])
        net.drop = drop
        net.handle(0, .pendingRelays(1))
        net.handle(0, .gather(localAddresses: [F.clientAddress]))
        net.handle(
            0,
            .relayCandidate(relayed: Self.relayed, mapped: Self.mapped, server: Self.turnServer, localPreference: 65535)
        )
        net.handle(0, .pendingRelays(0))
        net.handle(1, .gather(localAddresses: [F.bridgeAddress]))
        net.exchangeParameters(lite: [false, true])
        net.run(for: .seconds(3))
        return net
    }

    @Test func blockedDirectPathConnectsThroughTheRelay() throws {
        // A firewall drops the client's host traffic to the bridge; what leaves the relayed address gets through.
        let net = Self.clientWithRelayAndBridge { $0.from == F.clientAddress || $0.to == F.clientAddress }
        let pair = try #require(net.agents[0].selectedPair)
        #expect(pair.local == Self.relayed && pair.remote == F.bridgeAddress)
        #expect(pair.localCandidate.kind == .relay)
        #expect(net.agents[0].state == .completed || net.agents[0].state == .connected)
        #expect(net.agents[1].selectedPair?.remote == Self.relayed)
    }

    @Test func anOpenDirectPathIsPreferredOverTheRelay() throws {
        let pair = try #require(Self.clientWithRelayAndBridge().agents[0].selectedPair)
        #expect(pair.localCandidate.kind == .host)
    }
}
