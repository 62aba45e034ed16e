// The bridge's behaviour behind the HTTP routes and the events socket (the shell is `Bridge`).
import PolyCore
import PolyNet
import PolySignaling
import Synchronization

/// Call registry and operations; every method is safe from any thread. Media calls run outside the lock.
final class BridgeCore: Sendable {
    let configuration: BridgeConfiguration
    let template: AgentTemplate
    let tokens: TokenSet
    let state: Mutex<BridgeState>
    var log: BridgeLog { configuration.log }

    init(configuration: BridgeConfiguration, template: AgentTemplate) {
        self.configuration = configuration
        self.template = template
        self.tokens = TokenSet(configuration.tokens)
        self.state = Mutex(BridgeState(configuration: configuration))
        for token in configuration.tokens { configuration.log.redactor.register(token) }
    }

    // MARK: - Calls

    enum ProvisionOutcome {
        case provisioned(ProvisionResponse)
        case atCapacity
    }

    func provision(mode: String, at now: Instant) -> ProvisionOutcome {
        let id = SecureRandom.callID()
        // Per-call tokens are never passed to the log (tests check it), and are not registered with the
        // Redactor either: its list only grows, and a long-running bridge makes millions of them.
        let token = SecureRandom.callToken()
        let admitted = state.withLock { state -> Bool in
            guard state.running, state.calls.count < configuration.maxCalls else { return false }
            state.calls[id] = CallEntry(id: id, token: token, mode: mode)
            state.reaper.handle(.provisioned(id), at: now)
            state.metrics.provisioned += 1
            return true
        }
        guard admitted else { return .atCapacity }
        log.event(.info, "call.provisioned", ["callId": id, "mode": mode])
        let base = "/api/v1/call/\(id)"
        let extras = CallExtras(
            eventsUrl: base + "/events", pullUrl: base + "/sdp/pull", renegotiateUrl: base + "/sdp/renegotiate",
            iceRestartUrl: base + "/sdp/ice-restart", resumeGraceSeconds: configuration.timeouts.resumeGrace.inSeconds)
        return .provisioned(
            ProvisionResponse(
                callId: id,
                creds: CallCredentials(
                    provider: "polyvoice-reference", connectUrl: base + "/sdp", token: token, trackName: "agent-audio",
                    iceServers: configuration.turn.map { [$0.iceServer(callID: id)] } ?? [], extra: extras)))
    }

    enum Lookup {
        case found(CallEntry)
        case unknown
        case badToken
    }

    /// The call `id` if `token` is its per-call token (constant-time comparison).
    func authorize(_ id: String, token: String?) -> Lookup {
        guard let entry = state.withLock({ $0.calls[id] }) else { return .unknown }
        guard let token, TokenSet.constantTimeEquals(Array(entry.token.utf8), Array(token.utf8)) else {
            return .badToken
        }
        return .found(entry)
    }

    /// The call's media session, created on first use.
    func mediaSession(for entry: CallEntry) throws(BridgeMediaError) -> any BridgeMediaSession {
        if let media = entry.media { return media }
        let id = entry.id
        let template = self.template
        let record = configuration.recordDirectory
        let echo = entry.mode == "echo"
        let context = BridgeMediaContext(
            callID: id, mode: entry.mode,
            makeAgent: {
                echo
                    ? EchoAgent(delayMilliseconds: 0, recorder: record.map { CallRecorder(directory: $0, callID: id) })
                    : template.makeAgent(callID: id, recordDirectory: record)
            },
            emit: { [weak self] event in self?.send(event.bridgeEvent, toCall: id) },
            advertise: configuration.advertise, logger: log.logger(category: "media"),
            agentCoding: configuration.agentCoding)
        let created = try configuration.media.make(context)
        let winner = state.withLock { state -> (any BridgeMediaSession)? in
            guard state.calls[id] != nil else { return nil }
            if let existing = state.calls[id]?.media { return existing }
            state.calls[id]?.media = created
            return created
        }
        guard let winner else {
            created.close()
            throw .wrongState("the call has ended")
        }
        if winner !== created { created.close() }
        return winner
    }

    func setPullPending(_ id: String, _ pending: Bool) -> Bool {
        state.withLock { state in
            guard state.calls[id] != nil else { return false }
            let was = state.calls[id]?.pullPending ?? false
            state.calls[id]?.pullPending = pending
            return was
        }
    }

    func hangUp(_ id: String, at now: Instant) {
        state.withLock { $0.reaper.handle(.hangUp(id), at: now) }
        reap(at: now)
    }

    // MARK: - Events socket

    func send(_ event: BridgeEvent, toCall id: String) {
        guard let socket = state.withLock({ $0.calls[id]?.events }) else {
            log.event(.debug, "events.dropped", ["callId": id, "event": event.frameText])
            return
        }
        socket.send(text: event.frameText)
    }

    func eventsOpened(_ connection: WebSocketConnection, at now: Instant) {
        state.withLock { $0.unauthenticated[connection.id] = (connection, now) }
    }

    func eventsText(_ connection: WebSocketConnection, _ text: String, at now: Instant) {
        let authenticated = state.withLock { state in
            state.unauthenticated[connection.id] = nil
            return state.sockets[connection.id] != nil
        }
        if authenticated { return }  // frames after auth: ignored
        guard let id = Self.callID(inEventsPath: connection.path), let frame = AuthFrame.parse(text),
            case .found = authorize(id, token: frame.token)
        else {
            log.event(.info, "events.rejected", ["path": connection.path])
            state.withLock { $0.metrics.rejectedByReason["events_auth_rejected", default: 0] += 1 }
            connection.close(code: WebSocketClose.policyViolation, reason: "auth required")
            return
        }
        let replaced = state.withLock { state -> WebSocketConnection? in
            guard state.calls[id] != nil else { return nil }
            let previous = state.calls[id]?.events
            state.calls[id]?.events = connection
            state.sockets[connection.id] = id
            if let previous { state.sockets[previous.id] = nil }
            state.reaper.handle(.eventsOpened(id), at: now)
            return previous
        }
        replaced?.close(code: WebSocketClose.normal, reason: "replaced")
        log.event(.info, "events.authenticated", ["callId": id])
    }

    func eventsClosed(_ connection: WebSocketConnection, at now: Instant) {
        let id = state.withLock { state -> String? in
            state.unauthenticated[connection.id] = nil
            guard let id = state.sockets.removeValue(forKey: connection.id) else { return nil }
            guard state.calls[id]?.events == connection else { return nil }
            state.calls[id]?.events = nil
            state.reaper.handle(.eventsClosed(id), at: now)
            return id
        }
        if let id { log.event(.info, "events.closed", ["callId": id]) }
    }

    static func callID(inEventsPath path: String) -> String? {
        let parts = path.split(separator: "/")
        guard parts.count == 5, parts[0] == "api", parts[1] == "v1", parts[2] == "call", parts[4] == "events"
        else { return nil }
        return String(parts[3])
    }

    // MARK: - Reaping

    /// Feeds media activity to the reaper and ends the calls it reports.
    @discardableResult
    func reap(at now: Instant) -> [any BridgeMediaSession] {
        let sessions = state.withLock { state in state.calls.values.compactMap { e in e.media.map { (e.id, $0) } } }
        let stats = sessions.map { ($0.0, $0.1.stats) }
        let ended = state.withLock { state -> [(CallEntry, CallEndReason)] in
            for (id, stats) in stats {
                guard let entry = state.calls[id] else { continue }
                let connectedNow = stats.isConnected && !entry.mediaSeenConnected
                let newPacket =
                    stats.lastPacketAt.map { entry.lastPacketAt == nil || $0 > entry.lastPacketAt! } ?? false
                guard connectedNow || newPacket else { continue }
                // Written in place: copying every entry out and back each tick cost more than the check.
                if connectedNow { state.calls[id]?.mediaSeenConnected = true }
                if newPacket { state.calls[id]?.lastPacketAt = stats.lastPacketAt }
                state.reaper.handle(.mediaActive(id), at: now)
            }
            var ended: [(CallEntry, CallEndReason)] = []
            while let output = state.reaper.pollOutput(at: now) {
                guard let entry = state.calls.removeValue(forKey: output.callID) else { continue }
                if let socket = entry.events { state.sockets[socket.id] = nil }
                state.metrics.callEnded(output.reason)
                ended.append((entry, output.reason))
            }
            return ended
        }
        for (entry, reason) in ended { finish(entry, reason) }
        closeSilentSockets(at: now)
        return ended.compactMap(\.0.media)
    }

    /// Events sockets that never sent their auth frame are closed (1008) after `eventsAuthTimeout`.
    private func closeSilentSockets(at now: Instant) {
        let timeout = configuration.eventsAuthTimeout
        let silent = state.withLock { state -> [WebSocketConnection] in
            let expired = state.unauthenticated.values.filter { now - $0.opened >= timeout }.map(\.connection)
            for connection in expired { state.unauthenticated[connection.id] = nil }
            if !expired.isEmpty {
                state.metrics.rejectedByReason["events_auth_timeout", default: 0] += UInt64(expired.count)
            }
            return expired
        }
        for connection in silent {
            log.event(.info, "events.auth_timeout", ["path": connection.path])
            connection.close(code: WebSocketClose.policyViolation, reason: "auth required")
        }
    }

    /// Ends every call; returns their media sessions (closing in the background).
    func shutdown(at now: Instant) -> [any BridgeMediaSession] {
        state.withLock {
            $0.running = false
            $0.reaper.handle(.shutdown, at: now)
        }
        return reap(at: now)
    }

    private func finish(_ entry: CallEntry, _ reason: CallEndReason) {
        entry.events?.close(code: WebSocketClose.normal, reason: "call ended")
        if let media = entry.media {
            let stats = media.stats
            media.close()
            state.withLock { $0.metrics.foldEndedMedia(stats) }
        }
        log.event(.info, "call.ended", ["callId": entry.id, "reason": reason.rawValue])
    }

    // MARK: - Admission and metrics

    /// nil if the client may make a request now, else the wait before retrying.
    func admit(_ client: String, at now: Instant) -> Duration? {
        state.withLock { $0.limiter.admit(client, at: now) }
    }

    func countRejected(_ status: Int) {
        state.withLock { $0.metrics.rejected[status, default: 0] += 1 }
    }

    func metricsText() -> String {
        let (sessions, metrics, active) = state.withLock { state in
            (state.calls.values.compactMap(\.media), state.metrics, state.calls.count)
        }
        let stats = sessions.map(\.stats)
        return metrics.render(active: stats, activeCalls: active)
            + metrics.renderMediaDrops(active: stats, port: configuration.media.sharedPort?.currentCounters)
            // The loops calls run on (a shared media port's default loop is among them).
            + BridgeMetricsState.renderLoopLag(EventLoopGroup.shared.loops.map(\.frameClockLag))
    }

    var activeCalls: Int { state.withLock { $0.calls.count } }

    /// Calls ended since the bridge started (hung up, reaped or shut down).
    var endedCalls: UInt64 { state.withLock { $0.metrics.endedCalls } }
}
