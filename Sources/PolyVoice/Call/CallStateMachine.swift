// The sans-IO heart of a call: user commands and observed progress in, state changes and work out.
import PolyCore

/// Drives one call through PROTOCOL.md's steps, detects outages and runs the reconnect policy.
///
/// It owns no socket, thread or clock. The I/O shell feeds `handle(_:at:)`, drains
/// `pollOutput(at:)` after every input, and calls `pollOutput(at:)` again at `nextDeadline()`.
/// Every transition and timeout is documented in docs/CALL-STATES.md.
public struct CallStateMachine: Sendable {
    private enum EventsSocket: Equatable {
        /// Not requested yet (or the bridge has no events URL).
        case unused
        case opening
        case open
        /// Dropped; waiting for the next reconnect attempt.
        case down
        case reopening
    }

    public let policy: CallPolicy
    public private(set) var state: CallState = .idle
    public private(set) var isMuted: Bool
    /// The agent's audio is paused after a barge-in.
    public private(set) var isAgentAudioPaused = false
    /// What the bridge offers, once provisioned.
    public private(set) var capabilities: BridgeCapabilities?

    private var random: SeededRandom
    private var outputs = OutputQueue<CallOutput>()

    // Resources that exist and must be torn down.
    private var provisionRequested = false
    private var mediaStarted = false
    private var callDeleted = false

    // Connecting and media.
    private var connectDeadline: Instant?
    private var lastInbound: Instant?
    private var mediaDown = false

    // Pulls are serialised.
    private var pullInFlight = false
    private var pullPending = false
    private var firstPullDone = false

    private var events = EventsSocket.unused
    private var eventsDroppedAt: Instant?
    private var reopenTries = 0
    /// The open events socket came from a reopen and the bridge has sent nothing on it yet: a 1008 close now
    /// is the bridge refusing the auth frame (a restarted bridge that no longer knows the call).
    private var eventsUnconfirmedReopen = false

    // The current outage.
    private var outageStart: Instant?
    private var attempt = 0
    private var nextAttemptAt: Instant?
    private var restartNeeded = false
    private var restartInFlight = false
    private var addressChangedWithoutRestart = false

    /// - Parameters:
    ///   - seed: seeds the backoff jitter (tests pass a fixed one, the shell a random one).
    ///   - muted: whether the microphone starts muted.
    public init(policy: CallPolicy = CallPolicy(), seed: UInt64, muted: Bool = false) {
        self.policy = policy
        self.random = SeededRandom(seed: seed)
        self.isMuted = muted
    }

    // MARK: - The sans-IO interface

    /// Applies one input observed at `now` (timers due by `now` fire first).
    public mutating func handle(_ input: CallInput, at now: Instant) {
        fireTimers(at: now)
        if state.isTerminal || state == .idle {
            handleOutsideCall(input, at: now)
            return
        }
        switch input {
        case .start: break  // A second start while active does nothing.
        case .end: finish(.ended)
        case .setMuted(let muted): setMuted(muted)
        case .provisioned(let capabilities): provisioned(capabilities)
        case .offerAnswered, .iceConnected: break  // Media is "connected" once DTLS is done.
        case .dtlsConnected: mediaConnected(at: now)
        case .pullOffered: if pullInFlight { emit(.answerPull) }
        case .pullAnswered: pullAnswered()
        case .iceRestartAnswered: iceRestartAnswered(at: now)
        case .stepFailed(let step, let error): stepFailed(step, error, at: now)
        case .iceFailed where state == .connecting:
            finish(.failed(.voice(.mediaFailed("ICE connectivity checks failed"))))
        case .iceFailed where addressChangedWithoutRestart:
            finish(.failed(Self.cannotRestart))
        case .iceDisconnected, .iceFailed, .mediaStalled, .localAddressRemoved:
            if state != .connecting { mediaLost(at: now) }
        case .localAddressChanged: addressChanged(at: now)
        case .mediaFlowing: mediaFlowing(at: now)
        case .eventsSocketOpened: eventsOpened(at: now)
        case .eventsSocketDropped(let code): eventsDropped(code: code, at: now)
        case .bridgeEvent(let event): bridgeEvent(event)
        case .remoteHangup: finish(.ended)
        }
    }

    /// The next output, or nil when there is nothing to do until the next input or deadline.
    public mutating func pollOutput(at now: Instant) -> CallOutput? {
        fireTimers(at: now)
        return outputs.next()
    }

    /// When `pollOutput(at:)` must be called even without input; nil when no timer runs.
    public func nextDeadline() -> Instant? {
        switch state {
        case .connecting:
            return connectDeadline
        case .connected:
            return silenceDeadline
        case .reconnecting:
            let timeout = outageStart.map { $0 + policy.reconnectTimeout }
            return [silenceDeadline, nextAttemptAt, timeout, eventsGraceDeadline].lazy.compactMap { $0 }.min()
        case .idle, .ended, .failed:
            return nil
        }
    }

    // MARK: - Outside a call

    private mutating func handleOutsideCall(_ input: CallInput, at now: Instant) {
        switch input {
        case .start where state == .idle:
            provisionRequested = true
            connectDeadline = now + policy.connectTimeout
            setState(.connecting)
            emit(.provision)
        case .end where state == .idle:
            setState(.ended)  // Nothing was allocated, nothing to tear down.
        case .setMuted(let muted) where state == .idle:
            isMuted = muted  // Applied when media starts; the shell reads `isMuted`.
        case .provisioned where provisionRequested && !callDeleted:
            // Ended while provisioning: the bridge made a call after all, so delete it.
            callDeleted = true
            emit(.deleteCall)
        default:
            break
        }
    }

    // MARK: - Connecting

    private mutating func provisioned(_ capabilities: BridgeCapabilities) {
        guard state == .connecting, self.capabilities == nil else { return }
        self.capabilities = capabilities
        mediaStarted = true
        emit(.sendOffer)
    }

    private mutating func mediaConnected(at now: Instant) {
        guard state == .connecting else { return }
        connectDeadline = nil
        lastInbound = now
        setState(.connected)
        if capabilities?.hasPull == true {
            startPull()
        } else {
            firstPullDone = true
            openEventsIfNeeded()
        }
    }

    // MARK: - Pulls and events

    private mutating func startPull() {
        guard !pullInFlight else {
            pullPending = true
            return
        }
        pullInFlight = true
        pullPending = false
        emit(.pull)
    }

    private mutating func pullAnswered() {
        guard pullInFlight else { return }
        pullInFlight = false
        if !firstPullDone {
            firstPullDone = true
            openEventsIfNeeded()
        }
        if pullPending && state == .connected { startPull() }
    }

    private mutating func openEventsIfNeeded() {
        guard capabilities?.hasEvents == true, events == .unused else { return }
        events = .opening
        emit(.openEventsSocket)
    }

    private mutating func bridgeEvent(_ event: BridgeEvent) {
        eventsUnconfirmedReopen = false
        switch event {
        case .repull:
            guard capabilities?.hasPull == true else { return }
            if state == .connected && !pullInFlight { startPull() } else { pullPending = true }
        case .bargeIn:
            emit(.flushPlayout)
            if !isAgentAudioPaused {
                isAgentAudioPaused = true
                emit(.pausePlayout)
            }
        case .unmute:
            guard isAgentAudioPaused else { return }
            isAgentAudioPaused = false
            emit(.resumePlayout)
        }
    }

    private mutating func eventsOpened(at now: Instant) {
        guard events == .opening || events == .reopening else { return }
        eventsUnconfirmedReopen = events == .reopening
        events = .open
        eventsDroppedAt = nil
        tryRecover(at: now)
    }

    private mutating func eventsDropped(code: Int, at now: Instant) {
        let unconfirmedReopen = eventsUnconfirmedReopen
        eventsUnconfirmedReopen = false
        switch (events, code) {
        case (.opening, 1008):
            finish(.failed(.auth(.perCallTokenRejected)))
        case (.reopening, 1008):
            finish(.failed(.voice(.signalingFailed("The bridge refused to resume the call's events socket"))))
        case (.open, 1008) where unconfirmedReopen:
            // The WebSocket handshake of a reopen succeeds before the bridge reads the auth frame, so its
            // refusal usually arrives on an open socket.
            finish(.failed(.voice(.signalingFailed("The bridge refused to resume the call's events socket"))))
        case (.open, 1000):
            finish(.ended)  // The bridge closed the socket normally: the call is over.
        case (.opening, _), (.open, _), (.reopening, _):
            let wasReopening = events == .reopening
            events = .down
            if eventsDroppedAt == nil { eventsDroppedAt = now }
            if wasReopening {
                // A failed reopen: without the extension that was the one try; with it, the next attempt retries.
                if capabilities?.resumeGrace == nil { finish(.failed(Self.cannotResumeEvents)) }
            } else if state == .connected {
                enterReconnecting(at: now)
            } else if case .reconnecting = state, reopenTries > 0 {
                // A socket reopened in this outage dropped again: the next attempt reopens it (with backoff),
                // not now — reopening at once would hammer a bridge that accepts and closes in a loop.
            } else {
                reopenEventsIfAllowed()
            }
        case (.unused, _), (.down, _):
            break
        }
    }

    private mutating func reopenEventsIfAllowed() {
        guard events == .down else { return }
        // Without the resume extension the bridge may still accept one reopen; more is pointless.
        if capabilities?.resumeGrace == nil && reopenTries >= 1 {
            finish(.failed(Self.cannotResumeEvents))
            return
        }
        reopenTries += 1
        events = .reopening
        emit(.reopenEventsSocket)
    }

    // MARK: - Outages and recovery

    private var silenceDeadline: Instant? {
        guard !mediaDown, let lastInbound else { return nil }
        return lastInbound + policy.mediaSilenceTimeout
    }

    private var eventsGraceDeadline: Instant? {
        guard let eventsDroppedAt, let grace = capabilities?.resumeGrace else { return nil }
        return eventsDroppedAt + grace
    }

    private mutating func mediaLost(at now: Instant) {
        let wasDown = mediaDown
        mediaDown = true
        if state == .connected {
            enterReconnecting(at: now)
        } else if restartNeeded {
            if !restartInFlight { requestRestart() }
        } else if !wasDown {
            emit(.keepChecking)  // Media failed during an events-only outage: start checking now.
        }
    }

    private mutating func addressChanged(at now: Instant) {
        guard state != .connecting else { return }  // Gathering picks up the new address itself.
        if capabilities?.supportsICERestart == true {
            restartNeeded = true
        } else {
            addressChangedWithoutRestart = true
        }
        mediaLost(at: now)
        // The events socket's TCP connection left from the old address: nothing would notice it is dead before
        // its keepalive times out (~20 s later, a second outage). A bridge that lets it resume gets it reopened now.
        if events == .open, capabilities?.resumeGrace != nil, case .reconnecting = state {
            events = .down
            eventsDroppedAt = now
            reopenEventsIfAllowed()
        }
    }

    private mutating func mediaFlowing(at now: Instant) {
        lastInbound = now
        guard state != .connecting, !restartNeeded, !restartInFlight else { return }
        mediaDown = false
        addressChangedWithoutRestart = false
        tryRecover(at: now)
    }

    private mutating func iceRestartAnswered(at now: Instant) {
        guard restartInFlight else { return }
        restartInFlight = false
        restartNeeded = false
        addressChangedWithoutRestart = false
        lastInbound = now
    }

    private mutating func stepFailed(_ step: CallAction, _ error: PolyError, at now: Instant) {
        let reconnecting = if case .reconnecting = state { true } else { false }
        let isAuth = if case .auth = error { true } else { false }
        switch step {
        case .deleteCall:
            break  // Best effort.
        case .openEventsSocket, .reopenEventsSocket:
            if isAuth {
                finish(.failed(error))
            } else {
                eventsDropped(code: 1006, at: now)
            }
        case .iceRestart where reconnecting && restartInFlight && error.isRetryable && !isAuth:
            restartInFlight = false  // Retried at the next attempt.
        case .pull where reconnecting && pullInFlight && !isAuth,
            .answerPull where reconnecting && pullInFlight && !isAuth:
            pullInFlight = false
            pullPending = true  // Pulled again once connected.
        default:
            finish(.failed(error))
        }
    }

    private mutating func enterReconnecting(at now: Instant) {
        outageStart = now
        attempt = 0
        runAttempt(at: now)
    }

    /// One reconnect attempt: report it, act on every open problem, schedule the next one.
    private mutating func runAttempt(at now: Instant) {
        attempt += 1
        setState(.reconnecting(attempt: attempt))
        if mediaDown {
            if restartNeeded {
                if !restartInFlight { requestRestart() }
            } else {
                emit(.keepChecking)
            }
        }
        if events == .down { reopenEventsIfAllowed() }
        guard case .reconnecting = state else { return }
        nextAttemptAt = now + policy.backoff.delay(afterAttempt: attempt, using: &random)
    }

    private mutating func requestRestart() {
        restartInFlight = true
        emit(.iceRestart)
    }

    private mutating func tryRecover(at now: Instant) {
        guard case .reconnecting = state, !mediaDown, !restartNeeded, events == .unused || events == .open else {
            return
        }
        outageStart = nil
        nextAttemptAt = nil
        eventsDroppedAt = nil
        attempt = 0
        reopenTries = 0
        lastInbound = now
        setState(.connected)
        if pullPending { startPull() }
    }

    // MARK: - Timers

    private mutating func fireTimers(at now: Instant) {
        // Each firing ends the call or moves its deadline forward, so this terminates.
        while let deadline = nextDeadline(), deadline <= now {
            if state == .connecting {
                finish(.failed(.voice(.timedOut)))
            } else if let outageStart, deadline == outageStart + policy.reconnectTimeout {
                finish(.failed(addressChangedWithoutRestart ? Self.cannotRestart : .voice(.disconnected)))
            } else if deadline == eventsGraceDeadline {
                finish(.failed(.voice(.disconnected)))
            } else if deadline == silenceDeadline {
                mediaLost(at: deadline)
            } else {
                runAttempt(at: deadline)
            }
        }
    }

    // MARK: - Endings

    /// Tears down in PROTOCOL.md's order (events socket → media → DELETE), then reports `final`.
    private mutating func finish(_ final: CallState) {
        if events != .unused && events != .down { emit(.closeEventsSocket) }
        if mediaStarted { emit(.closeMedia) }
        if capabilities != nil && !callDeleted {
            callDeleted = true
            emit(.deleteCall)
        }
        events = .unused
        connectDeadline = nil
        outageStart = nil
        nextAttemptAt = nil
        eventsDroppedAt = nil
        lastInbound = nil
        setState(final)
    }

    private mutating func setMuted(_ muted: Bool) {
        guard muted != isMuted else { return }
        isMuted = muted
        emit(.setMicrophoneMuted(muted))
    }

    private mutating func setState(_ new: CallState) {
        guard new != state else { return }
        state = new
        outputs.append(.stateChanged(new))
    }

    private mutating func emit(_ action: CallAction) { outputs.append(.action(action)) }

    private static let cannotRestart = PolyError.voice(
        .mediaFailed("The network address changed and the bridge does not support ICE restart"))
    private static let cannotResumeEvents = PolyError.voice(
        .signalingFailed("The events socket dropped and the bridge does not support resuming it"))
}
