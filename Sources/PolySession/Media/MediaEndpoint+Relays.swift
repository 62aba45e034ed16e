// TURN relays (RFC 8656) of a client endpoint: one sans-IO `TURNClient` per configured server, allocating over
// UDP from a host socket of the server's family. Its relayed address becomes an ICE relay candidate, its own
// base: whatever ICE, DTLS, SRTP and RTCP send from that address goes through the client (Send indications,
// ChannelData once the selected pair's channel is bound), and what the server relays comes back into the
// normal demultiplexing as if it had arrived on the relayed address.
import PolyCore
import PolyNet

/// One TURN allocation of an endpoint.
struct RelayAllocation {
    var client: TURNClient
    /// The host socket that talks to the server.
    let base: TransportAddress
    /// Until the allocation succeeded or failed (ICE's gathering waits for it).
    var pending = true

    var server: TransportAddress { client.configuration.server }
}

extension MediaEndpoint {
    /// One allocation per UDP TURN server that a bound address can reach (same family). TCP and TLS servers
    /// need a stream from the shell, which this endpoint does not drive: they are skipped.
    func makeRelays(from addresses: [TransportAddress]) {
        guard configuration.role == .client else { return }
        for var server in configuration.turnServers where server.transport == .udp {
            guard let base = addresses.first(where: { $0.family == server.server.family && !$0.ip.isLinkLocal })
            else { continue }
            server.randomSeed = random.next()
            relays.append(RelayAllocation(client: TURNClient(configuration: server), base: base))
        }
    }

    /// Starts every allocation; call after ICE learnt how many are pending and began gathering.
    func startRelays(at now: Instant) {
        for index in relays.indices {
            relays[index].client.handle(.start, at: now)
            pumpRelay(index, at: now)
        }
    }

    /// What gathering found, for a "no path" error: the candidates by type and each TURN server that failed.
    var pathsTried: String {
        var parts: [String] = []
        for kind in Candidate.Kind.allCases {
            let found = ice.localCandidates.filter { $0.kind == kind }.map { "\($0.address)" }
            if !found.isEmpty { parts.append("\(kind.rawValue) \(found.joined(separator: ", "))") }
        }
        if configuration.relayOnly { parts.append("relay only") }
        if configuration.turnServers.isEmpty { parts.append("no TURN server") }
        parts += relayFailures
        return "tried " + parts.joined(separator: "; ")
    }

    var pendingRelayCount: Int { relays.reduce(0) { $0 + ($1.pending ? 1 : 0) } }

    /// Bytes from a TURN server to the socket that talks to it: true if they were the relay's.
    func receiveFromRelay(_ bytes: [UInt8], from: TransportAddress, to: TransportAddress, at now: Instant) -> Bool {
        guard let index = relays.firstIndex(where: { $0.base == to && $0.server == from }) else { return false }
        relays[index].client.handle(.received(bytes), at: now)
        pumpRelay(index, at: now)
        return true
    }

    /// Sends through the relay whose relayed address is `local`: true if there is one.
    func sendThroughRelay(_ bytes: [UInt8], from local: TransportAddress, to remote: TransportAddress, at now: Instant)
        -> Bool
    {
        guard let index = relays.firstIndex(where: { $0.client.relayedAddress == local }) else { return false }
        relays[index].client.handle(.send(bytes, to: remote), at: now)
        pumpRelay(index, at: now)
        return true
    }

    /// Media on a relay pair travels as ChannelData (4 bytes of overhead instead of a Send indication's 36).
    func bindRelayChannel(for pair: ICESelectedPair, at now: Instant) {
        guard pair.localCandidate.kind == .relay,
            let index = relays.firstIndex(where: { $0.client.relayedAddress == pair.local })
        else { return }
        relays[index].client.handle(.bindChannel(pair.remote), at: now)
        pumpRelay(index, at: now)
    }

    func advanceRelays(to now: Instant) {
        for index in relays.indices { pumpRelay(index, at: now) }
    }

    func relaysDeadline() -> Instant? { relays.compactMap { $0.client.nextDeadline() }.min() }

    /// Releases every allocation (Refresh with LIFETIME 0).
    func closeRelays(at now: Instant) {
        for index in relays.indices {
            relays[index].client.handle(.deallocate, at: now)
            pumpRelay(index, at: now)
        }
    }

    func pumpRelay(_ index: Int, at now: Instant) {
        while let output = relays[index].client.pollOutput(at: now) {
            switch output {
            case .transmit(let bytes):
                outputs.append(.transmit(bytes, from: relays[index].base, to: relays[index].server))
            case .allocated(let relayed, let mapped, _):
                guard relays[index].pending else { continue }  // a re-allocation needs an ICE restart to be used
                relays[index].pending = false
                ice.handle(
                    .relayCandidate(
                        relayed: relayed, mapped: mapped, server: relays[index].server,
                        localPreference: 65535 - UInt32(index)),
                    at: now)
                ice.handle(.pendingRelays(pendingRelayCount), at: now)
                pumpICE(at: now)
            case .data(let bytes, let peer):
                guard let relayed = relays[index].client.relayedAddress else { continue }
                receive(bytes, from: peer, to: relayed, at: now)
            case .failed(let error):
                relayFailures.append(error.description)  // before gathering may end and report what was tried
                if relays[index].pending {
                    relays[index].pending = false
                    ice.handle(.pendingRelays(pendingRelayCount), at: now)
                    pumpICE(at: now)
                }
                emit(.relayFailed(error.description))
            case .permissionCreated, .channelBound, .permissionFailed, .channelBindFailed, .closed:
                break
            }
        }
    }
}
