// Incoming datagrams: STUN requests (answered, with role-conflict and nomination handling) and
// responses to our checks, gathering and consent requests. Anything else is handed back untouched.
import PolyCore

extension ICEAgent {
    mutating func receive(_ bytes: [UInt8], from: TransportAddress, to: TransportAddress, at now: Instant) {
        guard STUNMessage.looksLikeSTUN(bytes) else {
            emit(.received(bytes: bytes, from: from, to: to))
            return
        }
        guard let message = try? STUNMessage(decoding: bytes) else { return }  // malformed STUN: dropped
        guard message.method == .binding else { return }
        switch message.messageClass {
        case .request: handleRequest(message, bytes: bytes, from: from, to: to, at: now)
        case .successResponse, .errorResponse: handleResponse(message, bytes: bytes, from: from, to: to, at: now)
        case .indication: break  // keepalives need no answer
        }
    }

    // MARK: Requests (RFC 8445 §7.3)

    private mutating func handleRequest(
        _ request: STUNMessage, bytes: [UInt8], from: TransportAddress, to: TransportAddress, at now: Instant
    ) {
        guard let username = request.username, request.hasIntegrity else {
            return reject(request, code: 400, reason: "Bad Request", from: from, to: to)
        }
        let candidates = [localCredentials] + (restarting ? [previousCredentials].compactMap { $0 } : [])
        guard
            let credentials = candidates.first(where: {
                username.hasPrefix($0.ufrag + ":")
                    && request.verifyIntegrity(of: bytes, key: Array($0.password.utf8))
            })
        else { return reject(request, code: 401, reason: "Unauthorized", from: from, to: to) }
        let key = Array(credentials.password.utf8)
        guard request.unknownRequiredAttributes.isEmpty else {
            var value = ByteWriter()
            for type in request.unknownRequiredAttributes { value.write(type) }
            return respond(
                request,
                attributes: [
                    .errorCode(code: 420, reason: "Unknown Attribute"), .other(type: 0x000A, value: value.bytes),
                ],
                key: key, from: from, to: to)
        }
        if configuration.mode == .full, resolveRoleConflict(request, at: now) {
            return respond(
                request, attributes: [.errorCode(code: 487, reason: "Role Conflict")], key: key, from: from, to: to)
        }
        respond(request, attributes: [.xorMappedAddress(from)], key: key, from: from, to: to)
        guard credentials == localCredentials else { return }  // old generation: answer, nothing more

        let remote = learnRemote(from, priority: request.priority ?? 0)
        if configuration.mode == .lite {
            noteLiteCheck(from: from, to: to, remote: remote, nominated: request.useCandidate, at: now)
        } else {
            triggerCheck(local: to, remote: remote, nominated: request.useCandidate && role == .controlled, at: now)
        }
    }

    /// RFC 8445 §7.3.1.1. Returns true when the request must be answered with 487.
    private mutating func resolveRoleConflict(_ request: STUNMessage, at now: Instant) -> Bool {
        if role == .controlling, let theirs = request.iceControlling {
            if configuration.tieBreaker >= theirs { return true }
            switchRole(to: .controlled)
        } else if role == .controlled, let theirs = request.iceControlled {
            if configuration.tieBreaker < theirs { return true }
            switchRole(to: .controlling)
        }
        return false
    }

    mutating func switchRole(to newRole: ICERole) {
        guard role != newRole else { return }
        role = newRole
        recomputePriorities()
        emit(.roleChanged(newRole))
    }

    /// The remote candidate a check came from; unknown sources become peer-reflexive (RFC 8445 §7.3.1.3).
    private mutating func learnRemote(_ address: TransportAddress, priority: UInt32) -> Candidate {
        if let known = remoteCandidates.first(where: { $0.address == address }) { return known }
        let candidate = Candidate(
            foundation: Candidate.foundation(kind: .peerReflexive, baseIP: address.ip, server: nil), priority: priority,
            address: address, kind: .peerReflexive)
        remoteCandidates.append(candidate)
        return candidate
    }

    /// RFC 8445 §7.3.1.4 triggered check; sent at once rather than in the next Ta slot to shorten set-up
    /// (the peer's own pacing bounds how often this happens).
    private mutating func triggerCheck(local: TransportAddress, remote: Candidate, nominated: Bool, at now: Instant) {
        let key = PairKey(local: local, remote: remote.address)
        if pairIndex(key) == nil {
            guard let base = localCandidates.first(where: { $0.address == local && $0.isOwnBase }) else { return }
            var pair = CandidatePair(local: base, remote: remote, state: .waiting)
            pair.priority = CandidatePair.priority(local: base.priority, remote: remote.priority, role: role)
            pairs.append(pair)
            sortPairs()
            if state == .new || state == .failed { setState(.checking) }
        }
        guard let index = pairIndex(key) else { return }
        if nominated { pairs[index].nominateOnSuccess = true }
        switch pairs[index].state {
        case .succeeded:
            if nominated { nominate(index, at: now) }
        case .inProgress:
            break  // its answer will do
        case .frozen, .waiting, .failed:
            if remoteParameters != nil { sendCheck(pairIndex: index, useCandidate: false, at: now) }
        }
    }

    private mutating func respond(
        _ request: STUNMessage, attributes: [STUNAttribute], key: [UInt8]?, from: TransportAddress,
        to: TransportAddress
    ) {
        let isError = attributes.contains { if case .errorCode = $0 { true } else { false } }
        let response = STUNMessage(
            messageClass: isError ? .errorResponse : .successResponse, transactionID: request.transactionID,
            attributes: attributes)
        transmit(response.encoded(integrityKey: key, fingerprint: true), from: to, to: from)
    }

    private mutating func reject(
        _ request: STUNMessage, code: Int, reason: String, from: TransportAddress, to: TransportAddress
    ) {
        respond(request, attributes: [.errorCode(code: code, reason: reason)], key: nil, from: from, to: to)
    }

    // MARK: Responses (RFC 8445 §7.2.5)

    private mutating func handleResponse(
        _ response: STUNMessage, bytes: [UInt8], from: TransportAddress, to: TransportAddress, at now: Instant
    ) {
        guard let transaction = transactions[response.transactionID] else { return }
        if let key = transaction.responseKey {
            // Unauthentic answers are ignored: the transaction keeps retransmitting.
            guard response.hasIntegrity, response.verifyIntegrity(of: bytes, key: key) else { return }
        }
        transactions[response.transactionID] = nil
        switch transaction.purpose {
        case .gathering(let base, let server):
            handleGatheringResponse(response, base: base, server: server, at: now)
            checkGatheringDone(at: now)
        case .check(let key, let useCandidate, let sentRole):
            handleCheckResponse(
                response, key: key, useCandidate: useCandidate, sentRole: sentRole, from: from, to: to, at: now)
        case .consent(let key):
            if response.messageClass == .successResponse, from == key.remote, to == key.local {
                consentGranted(at: now)
            }
        }
    }

    private mutating func handleCheckResponse(
        _ response: STUNMessage, key: PairKey, useCandidate: Bool, sentRole: ICERole, from: TransportAddress,
        to: TransportAddress, at now: Instant
    ) {
        guard let index = pairIndex(key) else { return }
        guard from == key.remote, to == key.local else {
            pairs[index].state = .failed  // non-symmetric (RFC 8445 §7.2.5.2.1)
            return
        }
        if response.messageClass == .errorResponse {
            if response.errorCode?.code == 487 {
                switchRole(to: sentRole == .controlling ? .controlled : .controlling)
                if let again = pairIndex(key) {
                    sendCheck(pairIndex: again, useCandidate: useCandidate && role == .controlling, at: now)
                }
            } else {
                pairs[index].state = .failed
            }
            return
        }
        if let mapped = response.xorMappedAddress, !localCandidates.contains(where: { $0.address == mapped }) {
            // Our address as the peer sees it: a local peer-reflexive candidate (not signalled without trickle).
            let local = pairs[index].local
            localCandidates.append(
                Candidate(
                    foundation: Candidate.foundation(kind: .peerReflexive, baseIP: local.address.ip, server: nil),
                    priority: Candidate.priority(kind: .peerReflexive, localPreference: (local.priority >> 8) & 0xFFFF),
                    address: mapped, kind: .peerReflexive, relatedAddress: local.address))
        }
        pairs[index].state = .succeeded
        if firstValidAt == nil { firstValidAt = now }
        let foundation = pairs[index].foundation
        for other in pairs.indices where pairs[other].state == .frozen && pairs[other].foundation == foundation {
            pairs[other].state = .waiting
        }
        if (useCandidate && role == .controlling) || (role == .controlled && pairs[index].nominateOnSuccess) {
            nominate(index, at: now)
        }
    }
}
