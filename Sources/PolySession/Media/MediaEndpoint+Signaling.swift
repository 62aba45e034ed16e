// Offers and answers (PROTOCOL.md §2, §3 and the iceRestartUrl extension) for both sides of a call.
import PolyCore
import PolyMedia
import PolyNet

extension MediaEndpoint {
    // MARK: Client

    /// The client's offer (PROTOCOL.md §2) once `.gatheringComplete` was reported: full ICE, `actpass`,
    /// one Opus line "0", BUNDLE, all candidates. After `restartICE(at:)` (and its gathering) this is the
    /// restart offer: new ufrag/pwd, every negotiated line, the established DTLS role.
    public func createOffer(at now: Instant) throws(MediaEndpointError) -> String {
        guard configuration.role == .client else { throw .wrongRole("only the client offers the call") }
        guard !isClosed else { throw .wrongState("closed") }
        guard ice.isGatheringComplete else { throw .gatheringIncomplete }
        let offered = lines.isEmpty ? [MediaLine(mid: "0", direction: .sendrecv)] : lines
        offeredLines = offered
        let setup: SDPSetup = dtls == nil ? .actpass : establishedSetup
        let description = MediaSessionDescriptions.offer(
            lines: offered, setup: setup, local: localParameters(), payloadType: Int(outgoing.payloadType),
            telephoneEvent: configuration.telephoneEvents
                ? Int(telephoneEventPayloadType ?? UInt8(SDPNegotiation.telephoneEventPayloadType)) : nil)
        sessionVersion += 1
        return description.text
    }

    /// Applies the bridge's answer to our last offer (initial or ICE restart).
    public func applyAnswer(_ text: String, at now: Instant) throws(MediaEndpointError) {
        guard configuration.role == .client else { throw .wrongRole("only the client takes answers to offers") }
        guard let offered = offeredLines else { throw .wrongState("no offer is waiting for an answer") }
        let answer = try parse(text)
        guard let parameters = answer.iceParameters else { throw .invalidDescription("no ICE credentials") }
        let fingerprints = try remoteFingerprints(of: answer)
        let answered = MediaSessionDescriptions.lines(of: answer)
        lines = offered.compactMap { line in
            answered.first { $0.mid == line.mid }.map { MediaLine(mid: line.mid, direction: $0.direction.reversed) }
        }
        guard !lines.isEmpty else { throw .invalidDescription("the answer accepts no audio line") }
        offeredLines = nil
        if dtls == nil { adoptPayloadType(of: answer) }  // the initial answer, not an ICE restart's
        adoptRemoteFormat(of: answer)
        // DTMF goes as RFC 4733 events only if the bridge answered the format.
        telephoneEventPayloadType =
            configuration.telephoneEvents
            ? answer.media.first(where: { !$0.isRejected })?.telephoneEventPayloadType.flatMap(UInt8.init(exactly:))
            : nil
        if dtls == nil {
            // RFC 8842: the answerer chose; `active` makes it the DTLS client and us the server.
            let role: DTLSEndpoint.Role
            switch answer.setup ?? .active {
            case .active: role = .server
            case .passive: role = .client
            case .actpass, .holdconn: throw .invalidDescription("answer must use a=setup:active or passive")
            }
            remoteFingerprints = fingerprints
            try makeDTLS(role: role, at: now)
        }
        if ice.remoteParameters?.credentials != parameters.credentials {
            ice.handle(.remoteParameters(parameters), at: now)
        }
        pumpICE(at: now)
    }

    /// Starts an ICE restart (after a local address change): new credentials, gathering on the current
    /// local addresses. Media stays on the old pair until the new one is selected. Call `createOffer(at:)`
    /// after the next `.gatheringComplete` (at once when only host candidates are gathered).
    public func restartICE(at now: Instant) throws(MediaEndpointError) {
        guard configuration.role == .client else { throw .wrongRole("only the client restarts ICE") }
        guard dtls != nil, !isClosed else { throw .wrongState("no call to restart") }
        guard !localAddresses.isEmpty else { throw .wrongState("no local address") }
        replaceRelays()
        ice.handle(.pendingRelays(pendingRelayCount), at: now)
        ice.handle(.restart(credentials: freshCredentials(), localAddresses: localAddresses), at: now)
        readvertiseRelays(at: now)
        startRelays(at: now)
        pumpICE(at: now)
    }

    // MARK: Both sides

    /// Answers an offer. Bridge: the client's initial offer (`active` to `actpass`: the bridge is the DTLS
    /// client; it only receives on the client's line) or an ICE-restart offer. Client: the bridge's pull
    /// offer that adds the agent's receive-only line in the same BUNDLE (or any re-offer).
    public func applyOffer(_ text: String, at now: Instant) throws(MediaEndpointError) -> String {
        guard !isClosed else { throw .wrongState("closed") }
        let offer = try parse(text)
        guard let parameters = offer.iceParameters else { throw .invalidDescription("no ICE credentials") }
        let fingerprints = try remoteFingerprints(of: offer)
        let initialOffer = dtls == nil
        let preferredSetup: SDPSetup
        switch configuration.role {
        case .bridge:
            if dtls == nil {
                guard ice.isGatheringComplete else { throw .gatheringIncomplete }
                remoteFingerprints = fingerprints
                let setup = SDPNegotiation.answerSetup(to: offer.setup ?? .actpass, preferred: .active)
                try makeDTLS(role: setup == .active ? .client : .server, at: now)
            } else if let current = ice.remoteParameters?.credentials, current != parameters.credentials {
                ice.handle(.restart(credentials: freshCredentials(), localAddresses: localAddresses), at: now)
            }
            preferredSetup = establishedSetup
        case .client:
            guard dtls != nil else { throw .wrongState("the bridge offered before the call was answered") }
            if let current = ice.remoteParameters?.credentials, current != parameters.credentials {
                ice.handle(.restart(credentials: freshCredentials(), localAddresses: localAddresses), at: now)
                readvertiseRelays(at: now)
            }
            preferredSetup = establishedSetup
        }
        if initialOffer { adoptPayloadType(of: offer) }
        adoptRemoteFormat(of: offer)
        if configuration.role == .bridge {
            telephoneEventPayloadType =
                configuration.telephoneEvents
                ? offer.media.first(where: { !$0.isRejected })?.telephoneEventPayloadType.flatMap(UInt8.init(exactly:))
                : nil
        }
        let agentMid = agentMid
        let isBridge = configuration.role == .bridge
        let answer: SessionDescription
        do {
            answer = try MediaSessionDescriptions.answer(
                to: offer, local: localParameters(), preferredSetup: preferredSetup,
                acceptTelephoneEvent: configuration.telephoneEvents,
                canSend: { mid in !isBridge || mid == agentMid })
        } catch {
            throw .invalidDescription(error.description)
        }
        lines = MediaSessionDescriptions.lines(of: answer)
        sessionVersion += 1
        if ice.remoteParameters?.credentials != parameters.credentials {
            ice.handle(.remoteParameters(parameters), at: now)
        }
        pumpICE(at: now)
        return answer.text
    }

    // MARK: Bridge

    /// The bridge's pull offer (PROTOCOL.md §3): the negotiated lines plus the agent's send-only line,
    /// same BUNDLE, same ICE credentials, the established DTLS role. Only once media is connected.
    public func createPullOffer(at now: Instant) throws(MediaEndpointError) -> String {
        guard configuration.role == .bridge else { throw .wrongRole("only the bridge pulls") }
        guard isConnected, !isClosed else { throw .wrongState("media is not connected") }
        let mid = agentMid ?? nextFreeMid()
        agentMid = mid
        var offered = lines
        if let index = offered.firstIndex(where: { $0.mid == mid }) {
            offered[index].direction = .sendonly
        } else {
            offered.append(MediaLine(mid: mid, direction: .sendonly))
        }
        pendingPull = offered
        let description = MediaSessionDescriptions.offer(
            lines: offered, setup: establishedSetup, local: localParameters(), payloadType: Int(outgoing.payloadType),
            telephoneEvent: telephoneEventPayloadType.map(Int.init))
        sessionVersion += 1
        return description.text
    }

    /// Applies the client's answer to the pull offer: the agent's line now sends.
    public func applyPullAnswer(_ text: String, at now: Instant) throws(MediaEndpointError) {
        guard configuration.role == .bridge else { throw .wrongRole("only the bridge pulls") }
        guard let offered = pendingPull else { throw .wrongState("no pull offer is waiting for an answer") }
        let answered = MediaSessionDescriptions.lines(of: try parse(text))
        lines = offered.compactMap { line in
            guard let answer = answered.first(where: { $0.mid == line.mid }) else { return nil }
            let theirs = answer.direction.reversed
            return MediaLine(
                mid: line.mid,
                direction: SDPDirection(
                    sends: line.direction.sends && theirs.sends, receives: line.direction.receives && theirs.receives))
        }
        pendingPull = nil
    }

    // MARK: Helpers

    /// Whether any negotiated line lets us send.
    var canSend: Bool { lines.contains { $0.direction.sends } }

    var establishedSetup: SDPSetup {
        switch dtlsRole {
        case .client: .active
        case .server: .passive
        case nil: .actpass
        }
    }

    func localParameters() -> SDPLocalParameters {
        var candidates = ice.localCandidates
        if let advertised = configuration.advertisedAddress {
            candidates = candidates.map { candidate in
                var rewritten = candidate
                if candidate.kind == .host, candidate.address.family == advertised.family {
                    rewritten.address = TransportAddress(
                        ip: advertised, port: configuration.advertisedPort ?? candidate.address.port)
                }
                return rewritten
            }
        }
        let certificate = configuration.certificate.fingerprint
        var local = SDPLocalParameters(
            credentials: ice.localCredentials, candidates: candidates,
            fingerprint: SDPFingerprint(algorithm: certificate.algorithm.rawValue, bytes: certificate.digest),
            sessionID: sessionID)
        local.iceLite = configuration.role == .bridge
        local.ssrc = outgoing.ssrc
        local.cname = configuration.cname
        local.sessionVersion = sessionVersion
        return local
    }

    func freshCredentials() -> ICECredentials {
        if configuration.deterministicCredentials { return ICECredentials.random(using: &random) }
        var system = SystemRandomNumberGenerator()
        return ICECredentials.random(using: &system)
    }

    private func nextFreeMid() -> String {
        var candidate = 0
        while lines.contains(where: { $0.mid == String(candidate) }) { candidate += 1 }
        return String(candidate)
    }

    private func parse(_ text: String) throws(MediaEndpointError) -> SessionDescription {
        do {
            return try SessionDescription(parsing: text)
        } catch {
            throw .invalidDescription(error.description)
        }
    }

    private func remoteFingerprints(of description: SessionDescription) throws(MediaEndpointError) -> [DTLSFingerprint]
    {
        let fingerprints = description.fingerprints.compactMap {
            DTLSFingerprint(sdpValue: "\($0.algorithm) \($0.hex)")
        }
        guard !fingerprints.isEmpty else { throw .invalidDescription("no usable a=fingerprint") }
        return fingerprints
    }

    /// Sends with the peer's Opus payload type (aiortc uses 96) from the description that first negotiates the
    /// line. Later ones never change it: aiortc's pull re-offers renumber Opus to 96 while its receiver keeps
    /// the negotiated number, and following them only before the first packet made the call's audio a race.
    private func adoptPayloadType(of description: SessionDescription) {
        guard let pt = description.media.first(where: { !$0.isRejected })?.opusPayloadType,
            UInt8(pt) != outgoing.payloadType
        else { return }
        outgoing = RTPOutgoingStream(
            ssrc: outgoing.ssrc, payloadType: UInt8(pt), initialSequenceNumber: outgoing.nextSequenceNumber,
            initialTimestamp: outgoing.nextTimestamp)
    }

    private func makeDTLS(role: DTLSEndpoint.Role, at now: Instant) throws(MediaEndpointError) {
        let endpoint: DTLSEndpoint
        do {
            endpoint = try DTLSEndpoint(
                DTLSEndpoint.Configuration(
                    role: role, certificate: configuration.certificate, remoteFingerprints: remoteFingerprints))
        } catch {
            throw .setup("DTLS: \(error)")
        }
        dtls = endpoint
        dtlsRole = role
        if role == .server || selectedPair != nil {
            endpoint.start(at: now)
            pumpDTLS(at: now)
        }
    }
}
