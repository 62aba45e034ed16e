// The sans-IO ICE agent (RFC 8445 full and lite, RFC 7675 consent): inputs in, datagrams/events out.
import PolyCore

/// An ICE agent for one media stream with one component (BUNDLE + rtcp-mux).
///
/// Drive it with `handle(_:at:)`, drain `pollOutput(at:)` until nil (it also fires due timers), and
/// call again at `nextDeadline()`. Send media on `selectedPair`.
public struct ICEAgent: Sendable {
    public internal(set) var configuration: ICEConfiguration
    public internal(set) var state: ICEConnectionState = .new
    public internal(set) var role: ICERole
    public internal(set) var localCredentials: ICECredentials
    public internal(set) var remoteParameters: ICERemoteParameters?
    /// Gathered local candidates (host, then server-reflexive) in gathering order.
    public internal(set) var localCandidates: [Candidate] = []
    public internal(set) var remoteCandidates: [Candidate] = []
    public internal(set) var isGatheringComplete = false
    /// The pair media uses; kept across an ICE restart until a new pair is selected.
    public internal(set) var selectedPair: ICESelectedPair?

    var random: SeededRandom
    var outputs = OutputQueue<ICEOutput>()
    var pairs: [CandidatePair] = []
    var transactions: [STUNTransactionID: STUNTransaction] = [:]
    var bases: [TransportAddress] = []
    /// The shell's TURN allocations still under way (`.pendingRelays`).
    var pendingRelays = 0
    var gatheringStart: Instant?
    var lastCandidateAt: Instant?
    var nextPacedCheck: Instant?
    var firstValidAt: Instant?
    var nominating = false
    /// Credentials from before an ICE restart, still accepted until the new pair is selected.
    var previousCredentials: ICECredentials?
    var restarting = false
    var nextConsentAt: Instant?
    var lastConsentAt: Instant?
    var consentPendingSince: Instant?
    /// Set by `.checkNow`: consent checks every `urgentProbeInterval` until one is answered.
    var probingUrgently = false
    /// True from an `advance` (once gathering is over) until the next input: nothing changed since, so no
    /// timer is due before `idleDeadline` (nil: none at all) and polls until then skip `advance`. The media
    /// shell polls after every packet and 20 ms tick, so this spares re-running every timer check each time.
    var idle = false
    var idleDeadline: Instant?

    public init(configuration: ICEConfiguration) {
        self.configuration = configuration
        role = configuration.role
        localCredentials = configuration.credentials
        random = SeededRandom(seed: configuration.randomSeed)
    }

    // MARK: Driving

    public mutating func handle(_ input: ICEInput, at now: Instant) {
        idle = false
        guard state != .closed else { return }
        switch input {
        case .gather(let addresses):
            startGathering(addresses, at: now)
        case .remoteParameters(let parameters):
            setRemote(parameters, at: now)
        case .relayCandidate(let relayed, let mapped, let server, let localPreference):
            addRelayCandidate(
                relayed: relayed, mapped: mapped, server: server, localPreference: localPreference, at: now)
        case .pendingRelays(let count):
            pendingRelays = max(0, count)
            checkGatheringDone(at: now)
        case .remoteCandidate(let candidate):
            addRemoteCandidate(candidate)
            formPairs(at: now)
        case .datagram(let bytes, let from, let to):
            receive(bytes, from: from, to: to, at: now)
        case .restart(let credentials, let addresses):
            restart(credentials: credentials, addresses: addresses, at: now)
        case .checkNow:
            checkNow(at: now)
        case .close:
            transactions.removeAll()
            pairs.removeAll()
            setState(.closed)
        }
    }

    /// The next output, after firing every timer due at `now`; nil when there is nothing to do.
    public mutating func pollOutput(at now: Instant) -> ICEOutput? {
        if outputs.isEmpty, state != .closed, !idle || idleDeadline.map({ now >= $0 }) == true {
            advance(to: now)
        }
        return outputs.next()
    }

    /// When the agent next needs `pollOutput(at:)` even without input.
    /// Allocation-free: the media shell asks after every packet and tick.
    public func nextDeadline() -> Instant? {
        guard state != .closed else { return nil }
        return idle ? idleDeadline : computeNextDeadline()
    }

    private func computeNextDeadline() -> Instant? {
        var earliest: Instant?
        for transaction in transactions.values { earliest.formEarliest(transaction.nextTransmit) }
        earliest.formEarliest(gatheringDeadline())
        if hasPairsToCheck { earliest.formEarliest(nextPacedCheck) }
        if configuration.nomination == .regular, role == .controlling, !nominating, let firstValidAt,
            pairs.contains(where: { $0.state == .succeeded })
        {
            earliest.formEarliest(firstValidAt + configuration.nominationWait)
        }
        earliest.formEarliest(consentDeadline())
        return earliest
    }

    // MARK: Shared helpers

    mutating func emit(_ event: ICEEvent) { outputs.append(.event(event)) }

    mutating func transmit(_ bytes: [UInt8], from: TransportAddress, to: TransportAddress) {
        outputs.append(.transmit(bytes: bytes, from: from, to: to))
    }

    mutating func setState(_ new: ICEConnectionState) {
        guard new != state else { return }
        state = new
        emit(.stateChanged(new))
    }

    mutating func newTransactionID() -> STUNTransactionID { .random(using: &random) }

    /// Fires timers: gathering completion, retransmissions, paced checks, nomination, consent.
    mutating func advance(to now: Instant) {
        checkGatheringDone(at: now)
        retransmit(at: now)
        sendPacedCheck(at: now)
        nominateIfReady(at: now)
        runConsent(at: now)
        updateChecklistState()
        // While gathering, a STUN transaction timing out (in `retransmit`, after `checkGatheringDone`) can
        // let gathering complete at the next poll without a timer: only idle once it is over.
        idle = isGatheringComplete || gatheringStart == nil
        idleDeadline = idle ? computeNextDeadline() : nil
    }

    /// Sends a request now and tracks it for retransmission.
    mutating func startTransaction(
        _ message: STUNMessage, key: [UInt8]?, responseKey: [UInt8]?, purpose: STUNTransaction.Purpose,
        from: TransportAddress, to: TransportAddress, transmissions: Int, at now: Instant
    ) {
        let bytes = message.encoded(integrityKey: key, fingerprint: true)
        transmit(bytes, from: from, to: to)
        transactions[message.transactionID] = STUNTransaction(
            purpose: purpose, bytes: bytes, from: from, to: to, responseKey: responseKey,
            rto: configuration.initialRTO, transmissionsLeft: transmissions - 1,
            nextTransmit: now + configuration.initialRTO)
    }

    private mutating func retransmit(at now: Instant) {
        for (id, transaction) in transactions where transaction.nextTransmit <= now {
            if transaction.transmissionsLeft > 0 {
                var next = transaction
                transmit(next.bytes, from: next.from, to: next.to)
                next.transmissionsLeft -= 1
                next.rto = min(next.rto * 2, configuration.maxRTO)
                next.nextTransmit = now + next.rto
                transactions[id] = next
            } else {
                transactions[id] = nil
                transactionTimedOut(transaction, at: now)
            }
        }
    }

    private mutating func transactionTimedOut(_ transaction: STUNTransaction, at now: Instant) {
        if case .check(let key, _, _) = transaction.purpose, let index = pairIndex(key) {
            pairs[index].state = .failed
        }
    }

    private mutating func restart(credentials: ICECredentials, addresses: [TransportAddress], at now: Instant) {
        previousCredentials = localCredentials
        localCredentials = credentials
        restarting = selectedPair != nil
        transactions = transactions.filter { if case .consent = $0.value.purpose { true } else { false } }
        pairs.removeAll()
        remoteParameters = nil
        remoteCandidates.removeAll()
        localCandidates.removeAll()
        bases.removeAll()
        firstValidAt = nil
        nominating = false
        isGatheringComplete = false
        startGathering(addresses, at: now)
    }
}
