// TURN relays (RFC 8656) of a client endpoint: one sans-IO `TURNClient` per configured server, allocating over
// UDP from a host socket of the server's family, or over a TCP/TLS stream the shell opens on request
// (`openStream`, `streamTransmit`, `streamReceived`, `streamClosed`). Its relayed address becomes an ICE relay candidate, its own
// base: whatever ICE, DTLS, SRTP and RTCP send from that address goes through the client (Send indications,
// ChannelData once the selected pair's channel is bound), and what the server relays comes back into the
// normal demultiplexing as if it had arrived on the relayed address.
import PolyCore
import PolyNet

/// One TURN allocation of an endpoint.
struct RelayAllocation {
    var client: TURNClient
    /// UDP: the host socket that talks to the server.
    let base: TransportAddress?
    /// TCP/TLS: the stream the shell opened for it.
    let stream: RelayStream?
    let relayProtocol: TURNRelayProtocol
    /// Its server's index in `configuration.turnServers` (the order that sets its candidate's priority).
    let serverIndex: Int
    /// Until the allocation succeeded or failed (ICE's gathering waits for it).
    var pending = true
    /// Its stream failed: the client is no longer driven.
    var dead = false
    /// From before an ICE restart: it still relays (media stays on the old pair until the restart selects
    /// one), then it is released.
    var retiring = false

    var server: TransportAddress { client.configuration.server }
}

extension MediaEndpoint {
    /// One allocation per TURN server: UDP ones that a bound address can reach (same family), and every
    /// TCP or TLS one (on a stream of its own). Servers in `skipping` keep the allocation they have.
    func makeRelays(from addresses: [TransportAddress], skipping: Set<Int> = []) {
        guard configuration.role == .client else { return }
        for (serverIndex, relay) in configuration.turnServers.enumerated() where !skipping.contains(serverIndex) {
            var settings = relay.client
            settings.randomSeed = random.next()
            if relay.relayProtocol == .udp {
                guard let base = addresses.first(where: { $0.family == settings.server.family && !$0.ip.isLinkLocal })
                else { continue }
                relays.append(
                    RelayAllocation(
                        client: TURNClient(configuration: settings), base: base, stream: nil, relayProtocol: .udp,
                        serverIndex: serverIndex))
            } else {
                // Ids are never reused: a stream replaced by an ICE restart may still report its closing.
                let id = nextRelayStreamID
                nextRelayStreamID += 1
                let stream = RelayStream(
                    id: id, server: settings.server, serverName: settings.serverName,
                    relayProtocol: relay.relayProtocol, hostName: relay.hostName, trustedCAFile: relay.trustedCAFile)
                relays.append(
                    RelayAllocation(
                        client: TURNClient(configuration: settings), base: nil, stream: stream,
                        relayProtocol: relay.relayProtocol, serverIndex: serverIndex))
            }
        }
    }

    /// Starts every new allocation; call after ICE learnt how many are pending and began gathering.
    func startRelays(at now: Instant) {
        for index in relays.indices where relays[index].pending {
            if let stream = relays[index].stream { outputs.append(.openStream(stream)) }
            relays[index].client.handle(.start, at: now)
            pumpRelay(index, at: now)
        }
    }

    /// ICE restart (a local address changed, or a relayed address did). A UDP allocation whose socket is still
    /// bound stays: it is valid, and a second one on the same 5-tuple is not possible (437); its candidate is
    /// offered again (`readvertiseRelays`). One whose socket is gone can neither relay nor be released, and is
    /// dropped, like every failed one. Every stream (its connection may have left from an address that is
    /// gone) is replaced by a new allocation; the old ones are retired: they keep relaying until the restart
    /// selects a pair (`releaseRetiredRelays`). Call before ICE restarts, then `startRelays`.
    func replaceRelays() {
        relays.removeAll { relay in relay.dead || relay.base.map { !localAddresses.contains($0) } ?? false }
        for index in relays.indices where relays[index].stream != nil {
            relays[index].retiring = true
            relays[index].pending = false
        }
        relayFailures.removeAll()
        makeRelays(from: localAddresses, skipping: Set(relays.filter { !$0.retiring }.map(\.serverIndex)))
    }

    /// The restart selected a pair: the allocations from before it are released. They stay in `relays`, dead,
    /// until the next restart: this runs while a relay's outputs are being pumped, by index.
    func releaseRetiredRelays(at now: Instant) {
        for index in relays.indices where relays[index].retiring && !relays[index].dead { release(index, at: now) }
    }

    /// After ICE restarted: the allocations it keeps offer their candidates again.
    func readvertiseRelays(at now: Instant) {
        for relay in relays where !relay.dead && !relay.retiring && !relay.pending {
            guard let relayed = relay.client.relayedAddress else { continue }
            addRelayCandidate(relay, relayed: relayed, mapped: relay.client.mappedAddress, at: now)
        }
    }

    private func addRelayCandidate(
        _ relay: RelayAllocation, relayed: TransportAddress, mapped: TransportAddress?, at now: Instant
    ) {
        ice.handle(
            .relayCandidate(
                relayed: relayed, mapped: mapped, server: relay.server,
                localPreference: 65535 - UInt32(relay.serverIndex)),
            at: now)
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

    /// Bytes read from a relay's stream.
    func receiveFromStream(_ bytes: [UInt8], stream: Int, at now: Instant) {
        guard let index = relays.firstIndex(where: { $0.stream?.id == stream }), !relays[index].dead else { return }
        relays[index].client.handle(.received(bytes), at: now)
        pumpRelay(index, at: now)
    }

    /// A relay's stream failed: the relay fails (the call goes on with the other candidates).
    func streamClosed(_ stream: Int, reason: String, at now: Instant) {
        guard let index = relays.firstIndex(where: { $0.stream?.id == stream }), !relays[index].dead else { return }
        relays[index].dead = true
        let relay = relays[index]
        guard !relay.retiring else { return }
        failRelay(
            index,
            "TURN server \(relay.client.configuration.serverName) over \(relay.relayProtocol.rawValue.uppercased()): \(reason)",
            at: now)
    }

    /// The transport protocol of the relay whose relayed address is `local` (for stats).
    func relayProtocol(of local: TransportAddress) -> TURNRelayProtocol? {
        relays.first { $0.client.relayedAddress == local }?.relayProtocol
    }

    /// Sends through the relay whose relayed address is `local`: true if there is one.
    /// Copies the bytes only when they do go through a relay (a direct path's packets never do).
    func sendThroughRelay(
        _ bytes: some Sequence<UInt8>, from local: TransportAddress, to remote: TransportAddress, at now: Instant
    ) -> Bool {
        guard let index = relays.firstIndex(where: { $0.client.relayedAddress == local }) else { return false }
        guard !relays[index].dead else { return true }
        relays[index].client.handle(.send(Array(bytes), to: remote), at: now)
        pumpRelay(index, at: now)
        return true
    }

    /// Media on a relay pair travels as ChannelData (4 bytes of overhead instead of a Send indication's 36).
    func bindRelayChannel(for pair: ICESelectedPair, at now: Instant) {
        guard pair.localCandidate.kind == .relay,
            let index = relays.firstIndex(where: { $0.client.relayedAddress == pair.local }), !relays[index].dead
        else { return }
        relays[index].client.handle(.bindChannel(pair.remote), at: now)
        pumpRelay(index, at: now)
    }

    func advanceRelays(to now: Instant) {
        for index in relays.indices { pumpRelay(index, at: now) }
    }

    func relaysDeadline() -> Instant? { relays.filter { !$0.dead }.compactMap { $0.client.nextDeadline() }.min() }

    /// Releases every allocation (Refresh with LIFETIME 0), then closes the streams.
    func closeRelays(at now: Instant) {
        for index in relays.indices { release(index, at: now) }
    }

    private func release(_ index: Int, at now: Instant) {
        guard !relays[index].dead else { return }
        relays[index].client.handle(.deallocate, at: now)
        pumpRelay(index, at: now)
        relays[index].dead = true
        if let stream = relays[index].stream { outputs.append(.closeStream(stream.id)) }
    }

    func pumpRelay(_ index: Int, at now: Instant) {
        guard !relays[index].dead else { return }
        while let output = relays[index].client.pollOutput(at: now) {
            switch output {
            case .transmit(let bytes):
                if let stream = relays[index].stream {
                    outputs.append(.streamTransmit(bytes, stream: stream.id))
                } else if let base = relays[index].base {
                    outputs.append(.transmit(bytes, from: base, to: relays[index].server))
                }
            case .allocated(let relayed, let mapped, _):
                guard relays[index].pending else {
                    // A re-allocation (437): the relayed address ICE offered is gone; a restart offers the new one.
                    let server = relays[index].client.configuration.serverName
                    if !relays[index].retiring { emit(.relayReallocated(server)) }
                    continue
                }
                relays[index].pending = false
                addRelayCandidate(relays[index], relayed: relayed, mapped: mapped, at: now)
                ice.handle(.pendingRelays(pendingRelayCount), at: now)
                pumpICE(at: now)
            case .data(let bytes, let peer):
                guard let relayed = relays[index].client.relayedAddress else { continue }
                receive(bytes, from: peer, to: relayed, at: now)
            case .failed(let error):
                if let stream = relays[index].stream {
                    relays[index].dead = true
                    outputs.append(.closeStream(stream.id))
                }
                if !relays[index].retiring { failRelay(index, error.description, at: now) }
                return
            case .permissionCreated, .channelBound, .permissionFailed, .channelBindFailed, .closed:
                break
            }
        }
    }

    private func failRelay(_ index: Int, _ reason: String, at now: Instant) {
        relayFailures.append(reason)  // before gathering may end and report what was tried
        if relays[index].pending {
            relays[index].pending = false
            ice.handle(.pendingRelays(pendingRelayCount), at: now)
            pumpICE(at: now)
        }
        emit(.relayFailed(reason))
    }
}
