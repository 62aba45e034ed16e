// Nomination and pair selection (RFC 8445 §8): regular or aggressive as controlling, USE-CANDIDATE as
// controlled or lite. Selecting a pair tells the media layer where to send.
import PolyCore

extension ICEAgent {
    /// Regular nomination: once a pair is valid, repeat its check with USE-CANDIDATE — at once if no
    /// better pair can still succeed, else after `nominationWait`.
    mutating func nominateIfReady(at now: Instant) {
        guard configuration.mode == .full, configuration.nomination == .regular, role == .controlling, !nominating,
            let firstValidAt, let best = pairs.firstIndex(where: { $0.state == .succeeded })
        else { return }
        let betterPending = pairs[..<best].contains { $0.state != .failed }
        guard !betterPending || now >= firstValidAt + configuration.nominationWait else { return }
        nominating = true
        sendCheck(pairIndex: best, useCandidate: true, at: now)
    }

    /// A pair is nominated: it becomes the selected pair.
    mutating func nominate(_ index: Int, at now: Instant) {
        pairs[index].nominated = true
        nominating = true
        select(local: pairs[index].local, remote: pairs[index].remote, at: now)
    }

    mutating func select(local: Candidate, remote: Candidate, at now: Instant) {
        let pair = ICESelectedPair(
            local: local.address, remote: remote.address, localCandidate: local, remoteCandidate: remote)
        restarting = false
        previousCredentials = nil
        lastConsentAt = now
        consentPendingSince = nil
        probingUrgently = false
        transactions = transactions.filter { if case .consent = $0.value.purpose { false } else { true } }
        scheduleConsent(after: now)
        if selectedPair?.local != pair.local || selectedPair?.remote != pair.remote {
            selectedPair = pair
            emit(.selectedPairChanged(pair))
        }
        if state != .completed { setState(.connected) }
    }

    /// Lite side: every authenticated check refreshes liveness; one with USE-CANDIDATE (also from a new
    /// address after the client's network changed) selects that path.
    mutating func noteLiteCheck(
        from: TransportAddress, to: TransportAddress, remote: Candidate, nominated: Bool, at now: Instant
    ) {
        if let selectedPair, selectedPair.remote == from, selectedPair.local == to {
            consentGranted(at: now)
        }
        guard nominated, let local = localCandidates.first(where: { $0.address == to && $0.kind == .host }) else {
            if state == .new { setState(.checking) }
            return
        }
        select(local: local, remote: remote, at: now)
    }
}
