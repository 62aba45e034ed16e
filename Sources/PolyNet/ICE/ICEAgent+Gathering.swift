// Gathering: host candidates from the shell's bound addresses, server-reflexive ones via STUN servers, relay
// ones from the shell's TURN allocations; finished per PROTOCOL.md (no trickle): 200 ms quiet after the first
// candidate, 2 s cap.
import PolyCore

extension ICEAgent {
    mutating func startGathering(_ addresses: [TransportAddress], at now: Instant) {
        gatheringStart = now
        lastCandidateAt = nil
        isGatheringComplete = false
        for (index, address) in addresses.enumerated() where !address.ip.isLinkLocal && !bases.contains(address) {
            bases.append(address)
            guard !configuration.relayOnly else { continue }
            let candidate = Candidate(
                foundation: Candidate.foundation(kind: .host, baseIP: address.ip, server: nil),
                priority: Candidate.priority(kind: .host, localPreference: 65535 - UInt32(min(index, 65535))),
                address: address, kind: .host)
            addLocalCandidate(candidate, at: now)
            guard configuration.mode == .full else { continue }
            for server in configuration.stunServers where server.family == address.family {
                let request = STUNMessage(messageClass: .request, transactionID: newTransactionID())
                startTransaction(
                    request, key: nil, responseKey: nil, purpose: .gathering(base: address, server: server),
                    from: address, to: server, transmissions: configuration.maxCheckTransmissions, at: now)
            }
        }
        formPairs(at: now)
        checkGatheringDone(at: now)
    }

    mutating func addLocalCandidate(_ candidate: Candidate, at now: Instant) {
        guard !localCandidates.contains(where: { $0.address == candidate.address && $0.kind == candidate.kind })
        else { return }
        localCandidates.append(candidate)
        lastCandidateAt = now
        emit(.candidateGathered(candidate))
    }

    /// A STUN server answered: its mapped address becomes a server-reflexive candidate.
    mutating func handleGatheringResponse(
        _ message: STUNMessage, base: TransportAddress, server: TransportAddress, at now: Instant
    ) {
        guard !isGatheringComplete, message.messageClass == .successResponse, let mapped = message.mappedAddress,
            mapped != base, let hostIndex = localCandidates.firstIndex(where: { $0.address == base })
        else { return }
        let host = localCandidates[hostIndex]
        let localPreference = (host.priority >> 8) & 0xFFFF
        addLocalCandidate(
            Candidate(
                foundation: Candidate.foundation(kind: .serverReflexive, baseIP: base.ip, server: server),
                priority: Candidate.priority(kind: .serverReflexive, localPreference: localPreference),
                address: mapped, kind: .serverReflexive, relatedAddress: base),
            at: now)
    }

    /// A relay candidate from one of the shell's TURN allocations; ignored once gathering is over (no trickle).
    mutating func addRelayCandidate(
        relayed: TransportAddress, mapped: TransportAddress?, server: TransportAddress, localPreference: UInt32,
        at now: Instant
    ) {
        guard configuration.mode == .full, !isGatheringComplete, gatheringStart != nil else { return }
        addLocalCandidate(
            Candidate(
                foundation: Candidate.foundation(kind: .relay, baseIP: relayed.ip, server: server),
                priority: Candidate.priority(kind: .relay, localPreference: localPreference),
                address: relayed, kind: .relay, relatedAddress: mapped),
            at: now)
        formPairs(at: now)
    }

    var hasPendingGathering: Bool {
        pendingRelays > 0 || transactions.values.contains { if case .gathering = $0.purpose { true } else { false } }
    }

    func gatheringDeadline() -> Instant? {
        guard !isGatheringComplete, let gatheringStart else { return nil }
        let cap = gatheringStart + configuration.gatheringCap
        guard let lastCandidateAt else { return cap }
        return min(cap, lastCandidateAt + configuration.gatheringQuiet)
    }

    /// Completes when no STUN server or TURN allocation can still answer, or 200 ms after the last candidate,
    /// or at the cap. Relay-only with nothing pending completes even without a candidate: none can come.
    mutating func checkGatheringDone(at now: Instant) {
        guard !isGatheringComplete, gatheringStart != nil else { return }
        let quietOrCapped = gatheringDeadline().map { now >= $0 } ?? false
        let nothingMoreCanCome = !hasPendingGathering && (!localCandidates.isEmpty || configuration.relayOnly)
        guard quietOrCapped || nothingMoreCanCome else { return }
        isGatheringComplete = true
        transactions = transactions.filter { if case .gathering = $0.value.purpose { false } else { true } }
        emit(.gatheringComplete(localCandidates))
    }
}
