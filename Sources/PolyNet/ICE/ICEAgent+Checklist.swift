// The checklist (RFC 8445 §6.1.2): pairing, priorities, unfreezing, paced ordinary checks, state.
import PolyCore

extension ICEAgent {
    mutating func setRemote(_ parameters: ICERemoteParameters, at now: Instant) {
        remoteParameters = parameters
        if parameters.isLite, configuration.mode == .full, role != .controlling {
            role = .controlling  // RFC 8445 §6.1.1: a full agent facing a lite one controls
            emit(.roleChanged(.controlling))
        }
        for candidate in parameters.candidates { addRemoteCandidate(candidate) }
        formPairs(at: now)
        // Pairs created by checks that arrived before these parameters wait for the pacer too.
        if nextPacedCheck == nil { nextPacedCheck = now }
        if state == .new || (state == .failed && !pairs.isEmpty) { setState(.checking) }
    }

    mutating func addRemoteCandidate(_ candidate: Candidate) {
        guard candidate.component == 1, candidate.transport.lowercased() == "udp",
            !remoteCandidates.contains(where: { $0.address == candidate.address })
        else { return }
        remoteCandidates.append(candidate)
    }

    /// Pairs every base (host or relay) with every remote candidate of its family (reflexive locals share
    /// their host's base, so pairing only bases is the RFC's pruning). Lite agents keep no checklist.
    mutating func formPairs(at now: Instant) {
        guard configuration.mode == .full, remoteParameters != nil else { return }
        var added = false
        for local in localCandidates where local.isOwnBase {
            for remote in remoteCandidates where remote.address.family == local.address.family {
                let key = PairKey(local: local.address, remote: remote.address)
                guard pairIndex(key) == nil else { continue }
                var pair = CandidatePair(local: local, remote: remote, state: .frozen)
                pair.priority = CandidatePair.priority(local: local.priority, remote: remote.priority, role: role)
                pairs.append(pair)
                added = true
            }
        }
        guard added else { return }
        sortPairs()
        // Per foundation, the highest-priority frozen pair starts waiting (one component).
        var seen: Set<String> = []
        for index in pairs.indices where pairs[index].state != .frozen { seen.insert(pairs[index].foundation) }
        for index in pairs.indices where pairs[index].state == .frozen && !seen.contains(pairs[index].foundation) {
            seen.insert(pairs[index].foundation)
            pairs[index].state = .waiting
        }
        if nextPacedCheck == nil { nextPacedCheck = now }
        if state == .new { setState(.checking) }
    }

    mutating func sortPairs() { pairs.sort { $0.priority > $1.priority } }

    func pairIndex(_ key: PairKey) -> Int? { pairs.firstIndex { $0.key == key } }

    mutating func recomputePriorities() {
        for index in pairs.indices {
            pairs[index].priority = CandidatePair.priority(
                local: pairs[index].local.priority, remote: pairs[index].remote.priority, role: role)
        }
        sortPairs()
    }

    var hasPairsToCheck: Bool {
        configuration.mode == .full && !nominating && remoteParameters != nil
            && pairs.contains { $0.state == .waiting || $0.state == .frozen }
    }

    /// One ordinary check per Ta: the best waiting pair, else unfreeze the best frozen one.
    mutating func sendPacedCheck(at now: Instant) {
        guard hasPairsToCheck, remoteParameters != nil, let due = nextPacedCheck, now >= due else { return }
        let index = pairs.firstIndex { $0.state == .waiting } ?? pairs.firstIndex { $0.state == .frozen }
        guard let index else { return }
        sendCheck(
            pairIndex: index, useCandidate: configuration.nomination == .aggressive && role == .controlling, at: now)
        nextPacedCheck = now + configuration.pacing
    }

    /// Sends a connectivity check on a pair (RFC 8445 §7.2.4).
    mutating func sendCheck(pairIndex index: Int, useCandidate: Bool, at now: Instant) {
        guard let remote = remoteParameters?.credentials else { return }
        let pair = pairs[index]
        // Only one check in flight per pair: drop an older transaction (its answer is no longer awaited).
        transactions = transactions.filter {
            if case .check(let key, _, _) = $0.value.purpose { key != pair.key } else { true }
        }
        pairs[index].state = .inProgress
        var attributes: [STUNAttribute] = [
            .username("\(remote.ufrag):\(localCredentials.ufrag)"),
            .priority(Candidate.priority(kind: .peerReflexive, localPreference: (pair.local.priority >> 8) & 0xFFFF)),
            role == .controlling ? .iceControlling(configuration.tieBreaker) : .iceControlled(configuration.tieBreaker),
        ]
        if useCandidate { attributes.append(.useCandidate) }
        let request = STUNMessage(messageClass: .request, transactionID: newTransactionID(), attributes: attributes)
        let key = Array(remote.password.utf8)
        startTransaction(
            request, key: key, responseKey: key, purpose: .check(pair.key, useCandidate: useCandidate, role: role),
            from: pair.local.address, to: pair.remote.address, transmissions: configuration.maxCheckTransmissions,
            at: now)
    }

    /// Moves between checking, connected, completed and failed as the checklist evolves.
    mutating func updateChecklistState() {
        guard configuration.mode == .full, state != .closed, state != .disconnected, remoteParameters != nil else {
            return
        }
        let checksInFlight = transactions.values.contains { if case .check = $0.purpose { true } else { false } }
        let open = pairs.contains { $0.state == .waiting || $0.state == .frozen || $0.state == .inProgress }
        if selectedPair != nil, !restarting {
            if state == .connected, !checksInFlight, !open || nominating { setState(.completed) }
        } else if !pairs.isEmpty, !open, !checksInFlight, isGatheringComplete, !restarting {
            setState(.failed)
        }
    }
}
