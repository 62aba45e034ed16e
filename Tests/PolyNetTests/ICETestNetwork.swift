import PolyCore
import Testing

@testable import PolyNet

/// A tiny virtual-time network for ICE agents: fixed one-way delay, a drop rule, and fake STUN servers
/// that answer with a NAT mapping of the sender's address after a configurable delay.
struct ICETestNetwork {
    struct Packet {
        var at: Instant
        var bytes: [UInt8]
        var from: TransportAddress
        var to: TransportAddress
    }

    var agents: [ICEAgent]
    var now = Instant.zero
    var delay: Duration = .milliseconds(5)
    var inFlight: [Packet] = []
    /// Return true to lose a datagram.
    var drop: (Packet) -> Bool = { _ in false }
    /// STUN server address → (mapped address for a sender, answer delay for the n-th request).
    var stunServers: [TransportAddress: (TransportAddress) -> TransportAddress] = [:]
    var stunServerDelay: (Int) -> Duration = { _ in .milliseconds(10) }
    var stunRequests = 0
    var events: [[(Instant, ICEEvent)]]
    var sent: [[Packet]]

    init(_ agents: [ICEAgent]) {
        self.agents = agents
        events = agents.map { _ in [] }
        sent = agents.map { _ in [] }
    }

    mutating func handle(_ index: Int, _ input: ICEInput) {
        agents[index].handle(input, at: now)
        drain()
    }

    /// Collects every agent's outputs at `now`, routing datagrams.
    mutating func drain() {
        for index in agents.indices {
            while let output = agents[index].pollOutput(at: now) {
                switch output {
                case .event(let event): events[index].append((now, event))
                case .transmit(let bytes, let from, let to):
                    let packet = Packet(at: now + delay, bytes: bytes, from: from, to: to)
                    sent[index].append(packet)
                    if drop(packet) { continue }
                    if let map = stunServers[to] {
                        answerSTUN(packet, mapped: map(from))
                    } else {
                        inFlight.append(packet)
                    }
                }
            }
        }
    }

    private mutating func answerSTUN(_ packet: Packet, mapped: TransportAddress) {
        guard let request = try? STUNMessage(decoding: packet.bytes), request.messageClass == .request else { return }
        stunRequests += 1
        let response = STUNMessage(
            messageClass: .successResponse, transactionID: request.transactionID,
            attributes: [.xorMappedAddress(mapped)])
        inFlight.append(
            Packet(at: now + stunServerDelay(stunRequests), bytes: response.encoded(), from: packet.to, to: packet.from)
        )
    }

    /// Runs the simulation until `end`, delivering datagrams to the agent owning the destination.
    mutating func run(until end: Instant) {
        drain()
        var steps = 0
        while true {
            steps += 1
            // A deadline that never moves would spin forever: fail loudly instead.
            guard steps < 200_000 else {
                Issue.record("simulation stuck at \(now)")
                break
            }
            let deadlines = agents.compactMap { $0.nextDeadline() } + inFlight.map(\.at)
            guard let next = deadlines.min(), next <= end else { break }
            now = max(now, next)
            let due = inFlight.filter { $0.at <= now }
            inFlight.removeAll { $0.at <= now }
            for packet in due {
                guard
                    let owner = agents.firstIndex(where: {
                        $0.localCandidates.contains { $0.address == packet.to && $0.isOwnBase }
                            || ownsBase($0, packet.to)
                    })
                else { continue }
                agents[owner].handle(.datagram(bytes: packet.bytes, from: packet.from, to: packet.to), at: now)
            }
            drain()
        }
        now = end
        drain()
    }

    private func ownsBase(_ agent: ICEAgent, _ address: TransportAddress) -> Bool {
        agent.bases.contains(address)
    }

    mutating func run(for duration: Duration) { run(until: now + duration) }

    /// Gives each agent the other's credentials and gathered candidates (offer/answer, no trickle).
    mutating func exchangeParameters(lite: [Bool] = [false, false]) {
        for index in 0..<2 {
            let other = 1 - index
            handle(
                index,
                .remoteParameters(
                    ICERemoteParameters(
                        credentials: agents[other].localCredentials, candidates: agents[other].localCandidates,
                        isLite: lite[other])))
        }
    }

    func states(_ index: Int) -> [ICEConnectionState] {
        events[index].compactMap { if case .stateChanged(let s) = $0.1 { s } else { nil } }
    }

    func firstTime(_ index: Int, of state: ICEConnectionState) -> Instant? {
        events[index].first { if case .stateChanged(let s) = $0.1 { s == state } else { false } }?.0
    }

    func selections(_ index: Int) -> [ICESelectedPair] {
        events[index].compactMap { if case .selectedPairChanged(let p) = $0.1 { p } else { nil } }
    }
}

enum ICEFixtures {
    static let clientAddress = TransportAddress("192.168.1.10:50000")!
    static let bridgeAddress = TransportAddress("10.0.0.1:3478")!

    static func configuration(
        mode: ICEMode = .full, role: ICERole = .controlling, seed: UInt64, tieBreaker: UInt64? = nil
    ) -> ICEConfiguration {
        var random = SeededRandom(seed: seed)
        return ICEConfiguration(
            mode: mode, role: role, credentials: .random(using: &random), tieBreaker: tieBreaker ?? random.next(),
            randomSeed: seed)
    }
}
