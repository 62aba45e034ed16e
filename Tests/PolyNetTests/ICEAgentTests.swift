import PolyCore
import Testing

@testable import PolyNet

@Suite struct ICEAgentTests {
    typealias F = ICEFixtures

    /// Client (full, controlling) and bridge (lite) gathered and exchanged parameters.
    static func clientAndBridge(client: ICEConfiguration? = nil) -> ICETestNetwork {
        var net = ICETestNetwork([
            ICEAgent(configuration: client ?? F.configuration(seed: 1)),
            ICEAgent(configuration: F.configuration(mode: .lite, seed: 2)),
        ])
        net.handle(0, .gather(localAddresses: [F.clientAddress]))
        net.handle(1, .gather(localAddresses: [F.bridgeAddress]))
        net.exchangeParameters(lite: [false, true])
        return net
    }

    @Test func fullControllingConnectsToLite() throws {
        var net = Self.clientAndBridge()
        net.run(for: .seconds(1))
        #expect(net.states(0) == [.checking, .connected, .completed])
        #expect(net.agents[1].state == .connected)
        let client = try #require(net.agents[0].selectedPair)
        let bridge = try #require(net.agents[1].selectedPair)
        #expect(client.local == F.clientAddress && client.remote == F.bridgeAddress)
        #expect(bridge.local == F.bridgeAddress && bridge.remote == F.clientAddress)
        // Check (5 ms), response (5 ms), nomination check and its response: about 20 ms of virtual time.
        let connected = try #require(net.firstTime(0, of: .connected))
        #expect(connected <= .milliseconds(25))
    }

    @Test func fullToFullAgreesOnPair() throws {
        var net = ICETestNetwork([
            ICEAgent(configuration: F.configuration(seed: 1)),
            ICEAgent(configuration: F.configuration(role: .controlled, seed: 2)),
        ])
        let secondClient = TransportAddress("192.168.1.10:50002")!
        net.handle(0, .gather(localAddresses: [F.clientAddress, secondClient]))
        net.handle(1, .gather(localAddresses: [F.bridgeAddress]))
        net.exchangeParameters()
        net.run(for: .seconds(2))
        let a = try #require(net.agents[0].selectedPair)
        let b = try #require(net.agents[1].selectedPair)
        #expect(a.local == b.remote && a.remote == b.local)
        #expect(a.local == F.clientAddress)  // the higher-priority host (listed first)
        #expect(net.agents[0].state == .completed)
        #expect(net.agents[1].state == .completed)
        #expect(net.selections(0).count == 1 && net.selections(1).count == 1)
    }

    @Test func aggressiveNominationSelectsOnFirstSuccess() throws {
        var configuration = F.configuration(seed: 1)
        configuration.nomination = .aggressive
        var net = Self.clientAndBridge(client: configuration)
        net.run(for: .seconds(1))
        #expect(net.agents[0].selectedPair?.remote == F.bridgeAddress)
        #expect(try #require(net.firstTime(0, of: .connected)) <= .milliseconds(12))
    }

    @Test func lostChecksAreRetransmitted() throws {
        var net = Self.clientAndBridge()
        var lost = 0
        net.drop = { packet in
            guard packet.to == F.bridgeAddress, lost < 2 else { return false }
            lost += 1
            return true
        }
        net.run(for: .seconds(3))
        #expect(lost == 2)
        #expect(net.agents[0].selectedPair?.remote == F.bridgeAddress)
        #expect(net.agents[1].selectedPair?.remote == F.clientAddress)
        // RTO 250 ms then 500 ms: the first check lands on the third transmission at ~750 ms.
        let connected = try #require(net.firstTime(0, of: .connected))
        #expect(connected >= .milliseconds(750) && connected < .milliseconds(800))
        #expect(net.sent[0].count >= 4)
    }

    @Test func allChecksLostFails() {
        var net = Self.clientAndBridge()
        net.drop = { $0.to == F.bridgeAddress }
        net.run(for: .seconds(20))
        #expect(net.agents[0].state == .failed)
        #expect(net.agents[0].selectedPair == nil)
    }

    @Test func roleConflictResolvesToOneControllingAgent() throws {
        var net = ICETestNetwork([
            ICEAgent(configuration: F.configuration(role: .controlling, seed: 1, tieBreaker: 10)),
            ICEAgent(configuration: F.configuration(role: .controlling, seed: 2, tieBreaker: 20)),
        ])
        net.handle(0, .gather(localAddresses: [F.clientAddress]))
        net.handle(1, .gather(localAddresses: [F.bridgeAddress]))
        net.exchangeParameters()
        net.run(for: .seconds(2))
        #expect(net.agents[0].role == .controlled)
        #expect(net.agents[1].role == .controlling)
        #expect(net.events[0].contains { if case .roleChanged(.controlled) = $0.1 { true } else { false } })
        // Someone answered 487 on the way.
        let errors = net.sent.flatMap { $0 }.compactMap { try? STUNMessage(decoding: $0.bytes) }
            .filter { $0.errorCode?.code == 487 }
        #expect(!errors.isEmpty)
        let a = try #require(net.agents[0].selectedPair)
        let b = try #require(net.agents[1].selectedPair)
        #expect(a.local == b.remote && a.remote == b.local)
    }

    @Test func consentLossDisconnectsThenFails() throws {
        var net = Self.clientAndBridge()
        net.run(for: .seconds(1))
        try #require(net.agents[0].state == .completed)
        let cut = net.now
        net.drop = { _ in true }
        net.run(for: .seconds(12))
        let disconnected = try #require(net.firstTime(0, of: .disconnected))
        // Selected at ~20 ms; the first consent check is due 4–6 s later, 3 s unanswered mean disconnected.
        #expect(disconnected >= .seconds(7) && disconnected <= .seconds(9.1))
        #expect(disconnected > cut)
        #expect(net.agents[0].state == .disconnected)
        #expect(net.agents[1].state == .disconnected)  // lite: no checks from the client for 8 s
        net.run(for: .seconds(25))
        let failed = try #require(net.firstTime(0, of: .failed))
        // No consent answer since selection (~20 ms): failed 30 s after it.
        #expect(failed >= .seconds(30) && failed <= .seconds(30.1))
    }

    @Test func consentRecoversToConnected() throws {
        var net = Self.clientAndBridge()
        net.run(for: .seconds(1))
        net.drop = { _ in true }
        net.run(for: .seconds(10))
        try #require(net.agents[0].state == .disconnected)
        let restored = net.now
        net.drop = { _ in false }
        net.run(for: .seconds(2))
        #expect(net.agents[0].state == .completed)  // connected, and its checks are long done
        #expect(net.agents[1].state == .connected)
        let reconnected = try #require(
            net.events[0].last { if case .stateChanged(.connected) = $0.1 { true } else { false } }?.0)
        #expect(reconnected - restored <= .milliseconds(1100))  // probes run every second while disconnected
        #expect(net.selections(0).count == 1)  // same pair throughout
    }

    @Test func iceRestartKeepsOldPairUntilNewOneIsSelected() throws {
        var net = Self.clientAndBridge()
        net.run(for: .seconds(1))
        let oldPair = try #require(net.agents[0].selectedPair)
        // The client's network changed: new address, new credentials; the bridge answers with new ones too.
        let newAddress = TransportAddress("172.16.0.5:50010")!
        var random = SeededRandom(seed: 99)
        net.handle(0, .restart(credentials: .random(using: &random), localAddresses: [newAddress]))
        #expect(net.agents[0].selectedPair == oldPair)
        #expect(net.agents[0].isGatheringComplete)
        net.handle(1, .restart(credentials: .random(using: &random), localAddresses: [F.bridgeAddress]))
        #expect(net.agents[1].selectedPair?.remote == F.clientAddress)
        net.exchangeParameters(lite: [false, true])
        #expect(net.agents[0].selectedPair == oldPair)  // media keeps flowing until the new pair is chosen
        net.run(for: .seconds(1))
        #expect(net.agents[0].selectedPair?.local == newAddress)
        #expect(net.agents[1].selectedPair?.remote == newAddress)
        #expect(net.selections(0).count == 2 && net.selections(1).count == 2)
        #expect(net.agents[0].state == .completed)
        // Consent keeps running on the new pair.
        net.run(for: .seconds(40))
        #expect(net.agents[0].state == .completed)
        #expect(net.agents[1].state == .connected)
    }

    @Test func liteMovesSelectedPairOnNominationFromNewAddress() throws {
        var net = Self.clientAndBridge()
        net.run(for: .seconds(1))
        var bridge = net.agents[1]
        let client = net.agents[0]
        let remote = try #require(bridge.remoteParameters?.credentials)
        let moved = TransportAddress("192.168.1.99:40000")!
        func check(_ useCandidate: Bool, password: String) -> [UInt8] {
            var random = SeededRandom(seed: 5)
            var attributes: [STUNAttribute] = [
                .username("\(bridge.localCredentials.ufrag):\(remote.ufrag)"), .priority(1000),
                .iceControlling(client.configuration.tieBreaker),
            ]
            if useCandidate { attributes.append(.useCandidate) }
            return STUNMessage(messageClass: .request, transactionID: .random(using: &random), attributes: attributes)
                .encoded(integrityKey: Array(password.utf8))
        }
        // Wrong password: 401, nothing moves.
        bridge.handle(.datagram(bytes: check(true, password: "nope"), from: moved, to: F.bridgeAddress), at: net.now)
        let firstOutput = bridge.pollOutput(at: net.now)
        let rejected = try #require(firstOutput)
        guard case .transmit(let bytes, _, let to) = rejected else {
            Issue.record("no answer")
            return
        }
        #expect(to == moved)
        #expect(try STUNMessage(decoding: bytes).errorCode?.code == 401)
        #expect(bridge.selectedPair?.remote == F.clientAddress)
        // Valid check without nomination: answered, pair unchanged.
        bridge.handle(
            .datagram(
                bytes: check(false, password: bridge.localCredentials.password), from: moved, to: F.bridgeAddress),
            at: net.now)
        #expect(bridge.selectedPair?.remote == F.clientAddress)
        // Valid check with USE-CANDIDATE: the path moves.
        bridge.handle(
            .datagram(bytes: check(true, password: bridge.localCredentials.password), from: moved, to: F.bridgeAddress),
            at: net.now)
        #expect(bridge.selectedPair?.remote == moved)
        var outputs: [ICEOutput] = []
        while let output = bridge.pollOutput(at: net.now) { outputs.append(output) }
        let answers = outputs.compactMap { if case .transmit(let b, _, let to) = $0, to == moved { b } else { nil } }
        #expect(answers.count == 2)
        let success = try STUNMessage(decoding: answers[1])
        #expect(success.messageClass == .successResponse && success.xorMappedAddress == moved)
        #expect(success.verifyIntegrity(of: answers[1], key: Array(bridge.localCredentials.password.utf8)))
        #expect(
            outputs.contains { if case .event(.selectedPairChanged(let p)) = $0 { p.remote == moved } else { false } })
    }

    @Test func nonSTUNDatagramsPassThroughUntouched() {
        var agent = ICEAgent(configuration: F.configuration(seed: 3))
        let rtp: [UInt8] = [0x80, 111, 0, 1] + Array(repeating: 7, count: 20)
        let dtls: [UInt8] = [22, 254, 253] + Array(repeating: 1, count: 30)
        agent.handle(.datagram(bytes: rtp, from: F.bridgeAddress, to: F.clientAddress), at: .zero)
        agent.handle(.datagram(bytes: dtls, from: F.bridgeAddress, to: F.clientAddress), at: .zero)
        // Malformed STUN (good cookie, bad length) is dropped, not passed on.
        agent.handle(
            .datagram(
                bytes: [0, 1, 0, 3, 0x21, 0x12, 0xA4, 0x42] + Array(repeating: 0, count: 12), from: F.bridgeAddress,
                to: F.clientAddress), at: .zero)
        #expect(
            agent.pollOutput(at: .zero) == .event(.received(bytes: rtp, from: F.bridgeAddress, to: F.clientAddress)))
        #expect(
            agent.pollOutput(at: .zero) == .event(.received(bytes: dtls, from: F.bridgeAddress, to: F.clientAddress)))
        #expect(agent.pollOutput(at: .zero) == nil)
    }

    @Test func pairPriorityFormula() {
        // RFC 8445 §6.1.2.3 with G = 100, D = 200 and swapped roles.
        #expect(CandidatePair.priority(local: 100, remote: 200, role: .controlling) == (100 << 32) + 400)
        #expect(CandidatePair.priority(local: 100, remote: 200, role: .controlled) == (100 << 32) + 400 + 1)
        #expect(Candidate.priority(kind: .host, localPreference: 65535) == 2_130_706_431)
        #expect(Candidate.priority(kind: .serverReflexive, localPreference: 65535) == 1_694_498_815)
        #expect(
            Candidate.foundation(kind: .host, baseIP: .loopbackV4, server: nil)
                != Candidate.foundation(kind: .serverReflexive, baseIP: .loopbackV4, server: nil))
    }
}
