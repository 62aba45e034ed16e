// The call's I/O shell: one serial driver that feeds CallStateMachine and carries out its actions.
import PolyCore
import PolyMedia
import PolySignaling

/// Runs one call. Every input (user commands, REST results, media and events socket progress,
/// network changes, timers) goes through one ordered stream into `run()`, which hands it to the
/// state machine and executes the actions it emits. Long steps run in child tasks and report back
/// through the stream; teardown steps are awaited in order before the next output is polled, and long
/// steps a failure overtook are cancelled and awaited (briefly), so the terminal state is published only
/// after everything is released.
actor CallShell {
    /// How long the end of a call waits for long steps still running (a request or media call that does not
    /// stop when cancelled); past it the end is published anyway.
    static let stepSettleLimit: Duration = .seconds(2)
    /// When a pull the bridge refused (409) is tried again: soon at first, since the bridge is usually a
    /// datagram's trip behind, then every 100 ms; about 2 s in all.
    static let pullRetry = RetryPolicy(
        maxAttempts: 24, baseDelay: .milliseconds(10), maxDelay: .milliseconds(100), jitter: 0)

    let options: VoiceOptions
    let logger: Logger
    let outputs: CallOutputs
    let audio: CallAudio

    private var machine: CallStateMachine
    private let client: BridgeClient
    private var bridgeHost: String? { client.configuration.baseURL.host }
    private let mediaFactory: CallMediaFactory
    private let input: AsyncStream<CallShellInput>.Continuation
    private var inputStream: AsyncStream<CallShellInput>?

    private var provisioned: ProvisionedCall?
    var provisionedCall: ProvisionedCall? { provisioned }
    private var media: (any CallMedia)?
    private var isMediaClosed = false
    private var pullAnswer: String?
    private var events: EventsSocket?
    private var eventsReader: Task<Void, Never>?
    private var eventsGeneration = 0
    private var deadlineTimer: Task<Void, Never>?
    private var scheduledDeadline: Instant?
    private var quality: CallQualityLoop?
    private var network: CallNetworkWatcher?
    /// Long steps running (`runStep`), by number; each removes itself when it ends.
    private var steps: [Int: Task<Void, Never>] = [:]
    private var stepsStarted = 0

    private var startWaiters: [CheckedContinuation<Void, any Error>] = []
    private var endWaiters: [CheckedContinuation<Void, Never>] = []
    private var offerAnswered = false
    private(set) var startedAt: Instant?
    private(set) var connectedAt: Instant?

    init(
        options: VoiceOptions, client: BridgeClient, mediaFactory: @escaping CallMediaFactory, logger: Logger,
        audio: CallAudio, outputs: CallOutputs, seed: UInt64
    ) {
        self.options = options
        self.client = client
        self.mediaFactory = mediaFactory
        self.logger = logger
        self.audio = audio
        self.outputs = outputs
        machine = CallStateMachine(policy: CallPolicy(options: options), seed: seed, muted: options.muted)
        let (stream, continuation) = AsyncStream.makeStream(of: CallShellInput.self)
        inputStream = stream
        input = continuation
    }

    // MARK: - Public commands (through PolyCall)

    /// Starts the call and waits until the bridge answered the offer (or the call ended or failed).
    func start() async throws {
        guard machine.state == .idle, startedAt == nil else { return }
        startedAt = Instant.now()
        if let stream = inputStream {
            inputStream = nil
            Task { await self.run(stream) }
        }
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            startWaiters.append(waiter)
            send(.call(.start))
        }
    }

    /// Ends the call and waits until everything is released.
    func end() async {
        if startedAt == nil {
            // Nothing was allocated: the machine goes straight to `ended`.
            machine.handle(.end, at: Instant.now())
            drainWithoutIO()
            audio.close()
            return
        }
        guard !isFinished else { return }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            endWaiters.append(waiter)
            send(.call(.end))
        }
    }

    var isMuted: Bool { machine.isMuted }

    func sendDTMF(_ digits: String, duration: Duration) async throws(DTMFError) -> DTMFMethod {
        guard let media, !isMediaClosed, machine.state == .connected else { throw .notConnected }
        return try await media.sendDTMF(digits, duration: duration)
    }

    func stats() async -> MediaStats {
        guard let media, !isMediaClosed else { return MediaStats() }
        return await media.stats()
    }

    /// Feeds an input from any thread (media events, network changes, events socket updates).
    nonisolated func send(_ item: CallShellInput) { input.yield(item) }

    // MARK: - The loop

    private func run(_ stream: AsyncStream<CallShellInput>) async {
        for await item in stream {
            let now = Instant.now()
            switch item {
            case .call(let callInput):
                note(callInput, at: now)
                machine.handle(callInput, at: now)
            case .tick:
                break
            case .eventsOpened(let generation):
                guard generation == eventsGeneration else { continue }
                machine.handle(.eventsSocketOpened, at: now)
            case .eventsDropped(let generation, let code):
                guard generation == eventsGeneration else { continue }
                events = nil
                machine.handle(.eventsSocketDropped(code: code), at: now)
            case .eventsFrame(let generation, let event):
                guard generation == eventsGeneration else { continue }
                machine.handle(.bridgeEvent(event), at: now)
            }
            await drain()
            if machine.state.isTerminal, isFinished { break }
        }
    }

    private var isFinished = false

    /// Polls the machine until it has nothing more, executing each output, then re-arms the timer.
    private func drain() async {
        while let output = machine.pollOutput(at: Instant.now()) {
            switch output {
            case .stateChanged(let state):
                if state.isTerminal { await settleSteps() }
                publish(state)
            case .action(let action): await execute(action)
            }
        }
        armTimer()
    }

    /// Before start: only local state changes (mute, end while idle) can come out.
    private func drainWithoutIO() {
        while let output = machine.pollOutput(at: Instant.now()) {
            switch output {
            case .stateChanged(let state): publish(state)
            case .action(let action): applyAudio(action)
            }
        }
    }

    private func armTimer() {
        let deadline = machine.nextDeadline()
        guard deadline != scheduledDeadline else { return }
        deadlineTimer?.cancel()
        scheduledDeadline = deadline
        guard let deadline, !machine.state.isTerminal else { return }
        let delay = max(.zero, deadline - Instant.now())
        deadlineTimer = Task { [input] in
            try? await Task.sleep(for: delay)
            guard !Task.isCancelled else { return }
            input.yield(.tick)
        }
    }

    /// Records what the caller should see of a state-machine input (timings, offer answered).
    private func note(_ callInput: CallInput, at now: Instant) {
        switch callInput {
        case .offerAnswered:
            offerAnswered = true
            resumeStartWaiters(with: nil)
        case .dtlsConnected where connectedAt == nil:
            connectedAt = now
            if machine.capabilities?.hasPull == false { audio.meters.isCaptureOpen = true }
        case .pullAnswered:
            audio.meters.isCaptureOpen = true
        default: break
        }
    }

    private func publish(_ state: CallState) {
        logger.info("state \(state)")
        outputs.states.yield(state)
        guard state.isTerminal else { return }
        switch state {
        case .failed(let error): resumeStartWaiters(with: error)
        default: resumeStartWaiters(with: nil)
        }
        finish()
    }

    private func resumeStartWaiters(with error: PolyError?) {
        let waiters = startWaiters
        startWaiters = []
        for waiter in waiters {
            if let error { waiter.resume(throwing: error) } else { waiter.resume() }
        }
    }

    /// After the terminal state: everything was released by the teardown actions before it.
    private func finish() {
        isFinished = true
        deadlineTimer?.cancel()
        quality?.stop()
        network?.stop()
        outputs.audioStates.finish()
        outputs.warnings.finish()
        input.finish()
        let waiters = endWaiters
        endWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    // MARK: - Actions

    private func execute(_ action: CallAction) async {
        logger.debug("action \(action)")
        switch action {
        case .provision: runStep(action) { try await $0.provision() }
        case .sendOffer: runStep(action) { try await $0.sendOffer() }
        case .pull: runStep(action) { try await $0.pull() }
        case .answerPull: runStep(action) { try await $0.answerPull() }
        case .iceRestart: runStep(action) { try await $0.restartICE() }
        case .openEventsSocket, .reopenEventsSocket: openEventsSocket(for: action)
        case .keepChecking:
            if let media { Task { await media.keepChecking() } }
        case .setMicrophoneMuted(let muted):
            applyAudio(action)
            await media?.setMuted(muted)
        case .flushPlayout:
            await media?.flushPlayout()
        case .pausePlayout, .resumePlayout:
            applyAudio(action)
        case .closeEventsSocket: await closeEventsSocket()
        case .closeMedia: await closeMedia()
        case .deleteCall: await client.hangUp()
        }
    }

    private func applyAudio(_ action: CallAction) {
        switch action {
        case .pausePlayout: audio.meters.isPlayoutPaused = true
        case .resumePlayout: audio.meters.isPlayoutPaused = false
        default: break
        }
        var state = outputs.audioStates.latest ?? AudioState()
        if state.apply(action) { outputs.audioStates.yield(state) }
    }

    /// Runs a long step in a child task; its success input is sent by the step, its failure here.
    private func runStep(_ action: CallAction, _ body: @escaping @Sendable (CallShell) async throws -> Void) {
        let number = stepsStarted
        stepsStarted += 1
        // The task runs on this actor, so it cannot end before it is stored.
        steps[number] = Task {
            defer { steps[number] = nil }
            do {
                try await body(self)
            } catch {
                let polyError = PolyError.from(error, media: action == .sendOffer || action == .iceRestart)
                self.logger.warn("\(action) failed: \(polyError)")
                self.send(.call(.stepFailed(action, polyError)))
            }
        }
    }

    /// Before the end is published: a failure can overtake a step (media reports no path while the offer's
    /// answer is still being applied). Such a step is cancelled and awaited, so that nothing of the call still
    /// runs once its caller sees it ended (and, in the CLI, exits).
    private func settleSteps() async {
        let running = Array(steps.values)
        guard !running.isEmpty else { return }
        for step in running { step.cancel() }
        if !(await BoundedWait.wait(for: running, atMost: Self.stepSettleLimit)) {
            logger.warn("\(steps.count) call step(s) still running \(Self.stepSettleLimit) after the call ended")
        }
    }

    private func provision() async throws {
        let call = try await client.provision()
        logger.redactor.register(call.token)
        logger.redactor.register(call.callId)
        provisioned = call
        logger.info("provisioned \(call)")
        let capabilities = BridgeCapabilities(
            hasPull: call.pullURL != nil && call.renegotiateURL != nil, hasEvents: call.eventsURL != nil,
            supportsICERestart: call.iceRestartURL != nil,
            resumeGrace: call.resumeGraceSeconds.map { .milliseconds(Int64($0 * 1000)) })
        send(.call(.provisioned(capabilities)))
    }

    private func sendOffer() async throws {
        let setup = CallMediaSetup(
            options: options,
            iceServers: (provisioned?.iceServers ?? [])
                + options.iceServers.map { ICEServer(urls: $0.urls, username: $0.username, credential: $0.credential) },
            audio: audio, bridgeHost: bridgeHost,
            logger: logger.child("media"),
            onEvent: { [input] event in input.yield(.call(event.callInput)) })
        let media = try await mediaFactory(setup)
        guard adopt(media) else {
            await media.close()
            return
        }
        if machine.isMuted { await media.setMuted(true) }
        let offer = try await media.createOffer()
        let answer = try await client.connect(offerSDP: offer.sdp, mid: offer.mid)
        try await media.applyAnswer(answer)
        send(.call(.offerAnswered))
    }

    /// Keeps the new media session unless the call was torn down while it was being made.
    private func adopt(_ newMedia: any CallMedia) -> Bool {
        guard !isMediaClosed, !machine.state.isTerminal else { return false }
        media = newMedia
        quality = CallQualityLoop(shell: self, meters: audio.meters, outputs: outputs)
        network = CallNetworkWatcher(shell: self, logger: logger.child("network"))
        return true
    }

    private func pull() async throws {
        let offer = try await pullOffer()
        guard let media else { throw PolyError.voice(.mediaFailed("no media session to apply the pull to")) }
        pullAnswer = try await media.applyOffer(offer)
        send(.call(.pullOffered))
    }

    /// The bridge may see media connected a moment after we do (DTLS's last flight is ours, so it completes
    /// there when that flight arrives) and refuses the pull (409) until then.
    private func pullOffer() async throws -> String {
        var attempt = 1
        while true {
            let result: Result<String, SignalingError>
            do { result = .success(try await client.pull()) } catch { result = .failure(error) }
            guard case .failure(.signalingFailed(let message)) = result, message.hasSuffix("(409)"),
                attempt < Self.pullRetry.maxAttempts
            else {
                return try result.get()
            }
            logger.debug("pull refused (409), retrying")
            try await Task.sleep(for: Self.pullRetry.backoff(afterAttempt: attempt, unitRandom: 0))
            attempt += 1
        }
    }

    private func answerPull() async throws {
        guard let answer = pullAnswer else { throw PolyError.voice(.mediaFailed("no answer to the pull")) }
        pullAnswer = nil
        try await client.renegotiate(answerSDP: answer)
        send(.call(.pullAnswered))
    }

    private func restartICE() async throws {
        guard let media else { throw PolyError.voice(.mediaFailed("no media session to restart")) }
        let offer = try await media.restartICE()
        let answer = try await client.iceRestart(offerSDP: offer)
        try await media.applyRestartAnswer(answer)
        send(.call(.iceRestartAnswered))
    }

    func mediaUsesAddress(_ ip: String) async -> Bool {
        guard let media, !isMediaClosed else { return false }
        return await media.usesLocalAddress(ip)
    }

    // MARK: - Events socket

    private func openEventsSocket(for action: CallAction) {
        retireEventsSocket()
        eventsGeneration += 1
        let generation = eventsGeneration
        guard let call = provisioned, let url = call.eventsURL else {
            send(.call(.stepFailed(action, .voice(.signalingFailed("The bridge gave no events URL")))))
            return
        }
        do {
            let wsURL = try BridgeURLs.webSocketURL(for: url)
            // wss: trusts the same CA file as the REST requests (lws loads it besides the system store).
            let caFile = wsURL.scheme?.lowercased() == "wss" ? BridgeTrust.caFile(options.trustedCAFile) : nil
            let socket = try EventsSocket(
                configuration: EventsSocket.Configuration(url: wsURL, token: call.token, trustedCAFile: caFile))
            events = socket
            let logger = logger.child("events")
            eventsReader = Task { [input] in
                for await update in socket.updates {
                    switch update {
                    case .open:
                        input.yield(.eventsOpened(generation: generation))
                    case .event(let event):
                        logger.debug("bridge event \(event)")
                        input.yield(.eventsFrame(generation: generation, BridgeEvent(event)))
                    case .closed(let close):
                        logger.info("events socket closed (\(close.code))")
                        input.yield(.eventsDropped(generation: generation, code: close.code))
                    }
                }
            }
        } catch {
            send(.call(.stepFailed(action, PolyError(error))))
        }
    }

    /// A socket being replaced (reopened after a drop or an address change) has its reader stopped first, then
    /// is closed without waiting: over a vanished address its close would otherwise wait for a keepalive
    /// timeout. Nothing it still delivers reaches the call.
    private func retireEventsSocket() {
        eventsReader?.cancel()
        eventsReader = nil
        events?.close(code: WebSocketClose.normal, reason: "replaced")
        events = nil
    }

    /// Teardown 1: close with 1000 and wait (briefly) for the close handshake.
    private func closeEventsSocket() async {
        eventsGeneration += 1  // late updates of this socket no longer matter
        guard let socket = events else { return }
        events = nil
        socket.close(code: WebSocketClose.normal)
        if let reader = eventsReader {
            await BoundedWait.wait(for: [reader], atMost: .seconds(1))
        }
        eventsReader?.cancel()
        eventsReader = nil
    }

    /// Teardown 2: media and audio endpoints.
    private func closeMedia() async {
        guard !isMediaClosed else { return }
        isMediaClosed = true
        quality?.stop()
        network?.stop()
        if let media { await media.close() }
        audio.close()
    }
}

extension BridgeEvent {
    /// The state machine's view of an events socket frame.
    init(_ event: PolySignaling.BridgeEvent) {
        switch event {
        case .repull: self = .repull
        case .bargeIn: self = .bargeIn
        case .unmute: self = .unmute
        }
    }
}

extension CallMediaEvent {
    var callInput: CallInput {
        switch self {
        case .iceConnected: .iceConnected
        case .iceDisconnected: .iceDisconnected
        case .iceFailed: .iceFailed
        case .connected: .dtlsConnected
        case .mediaFlowing: .mediaFlowing
        case .mediaStalled: .mediaStalled
        case .remoteClosed: .remoteHangup
        case .failed(let reason): .stepFailed(.sendOffer, .voice(.mediaFailed(reason)))
        case .noPath(let reason): .stepFailed(.sendOffer, .transport(reason))
        case .relayAddressChanged: .localAddressChanged
        }
    }
}
