// Consent freshness (RFC 7675): periodic authenticated checks on the selected pair; `disconnected` when
// they go unanswered for a few seconds, `failed` after 30 s, back to `connected` when answers return.
// While the call is reconnecting (`.checkNow`) the checks come every 200 ms until one is answered.
import PolyCore

extension ICEAgent {
    mutating func scheduleConsent(after now: Instant) {
        guard configuration.mode == .full else { return }
        let jitter = 0.8 + 0.4 * random.unit()
        let interval =
            if probingUrgently {
                configuration.urgentProbeInterval
            } else if state == .disconnected {
                configuration.disconnectedProbeInterval
            } else {
                configuration.consentInterval * jitter
            }
        nextConsentAt = now + interval
    }

    mutating func consentGranted(at now: Instant) {
        lastConsentAt = now
        consentPendingSince = nil
        probingUrgently = false
        if state == .disconnected { setState(.connected) }
        emit(.consentConfirmed)
    }

    /// `.checkNow`: a consent check on the selected pair at once, then urgent probing (see `scheduleConsent`).
    mutating func checkNow(at now: Instant) {
        guard configuration.mode == .full, selectedPair != nil, !restarting, state != .failed, lastConsentAt != nil
        else { return }
        probingUrgently = true
        nextConsentAt = now
        runConsent(at: now)
    }

    /// The earliest consent timer: the next check, going disconnected, failing.
    ///
    /// Here and in `runConsent`, `lastConsentAt` stands for "a pair is selected" (`select` sets both, and
    /// only answers on the selected pair refresh it): testing `selectedPair != nil` would copy the pair,
    /// with retains of its candidates, on every poll.
    func consentDeadline() -> Instant? {
        guard !restarting, state != .failed, let lastConsentAt else { return nil }
        let failAt = lastConsentAt + configuration.failedAfter
        // Once disconnected, only failure (or recovery through input) is still ahead.
        if configuration.mode == .lite {
            return state == .disconnected
                ? failAt : min(lastConsentAt + configuration.consentInterval + configuration.disconnectedAfter, failAt)
        }
        var earliest = failAt
        if let nextConsentAt { earliest = min(earliest, nextConsentAt) }
        if state != .disconnected, let since = consentPendingSince {
            earliest = min(earliest, since + configuration.disconnectedAfter)
        }
        return earliest
    }

    mutating func runConsent(at now: Instant) {
        // `selectedPair` is bound only when a check goes out (see `consentDeadline`).
        guard !restarting, state != .failed, let lastConsentAt else { return }
        if now >= lastConsentAt + configuration.failedAfter {
            setState(.failed)
            transactions = transactions.filter { if case .consent = $0.value.purpose { false } else { true } }
            return
        }
        if configuration.mode == .lite {
            if now >= lastConsentAt + configuration.consentInterval + configuration.disconnectedAfter {
                setState(.disconnected)
            }
            return
        }
        if let since = consentPendingSince, now >= since + configuration.disconnectedAfter {
            setState(.disconnected)
        }
        if let due = nextConsentAt, now >= due, let pair = selectedPair, let remote = remoteParameters?.credentials {
            let request = STUNMessage(
                messageClass: .request, transactionID: newTransactionID(),
                attributes: [
                    .username("\(remote.ufrag):\(localCredentials.ufrag)"),
                    .priority(
                        Candidate.priority(
                            kind: .peerReflexive, localPreference: (pair.localCandidate.priority >> 8) & 0xFFFF)),
                    role == .controlling
                        ? .iceControlling(configuration.tieBreaker) : .iceControlled(configuration.tieBreaker),
                ])
            let key = Array(remote.password.utf8)
            startTransaction(
                request, key: key, responseKey: key, purpose: .consent(PairKey(local: pair.local, remote: pair.remote)),
                // Urgent probes come every 200 ms anyway: one retransmission keeps a slow answer matchable.
                from: pair.local, to: pair.remote, transmissions: probingUrgently ? 2 : 4, at: now)
            if consentPendingSince == nil { consentPendingSince = now }
            scheduleConsent(after: now)
        }
    }
}
