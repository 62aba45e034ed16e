// The public handle of one voice call (as `PolyCall` in the PolyVoice mobile SDK).
import PolyCore
import PolyMedia
import PolyNet
import PolySignaling
import Synchronization

/// One voice call to an agent through a voice bridge.
///
/// Create it with `PolyVoice.call(options:)`, then `start()` it and watch `states` for `.connected`.
/// `end()` hangs up. All methods may be called from any task; the call's work runs on one serial driver.
///
/// ```swift
/// PolyVoice.initialize(Configuration(apiKey: key, environment: .us, webrtcToken: token))
/// let call = try PolyVoice.call(options: VoiceOptions())
/// try await call.start()
/// for await state in call.states { print(state) }
/// ```
public final class PolyCall: Sendable {
    /// The options the call was made with (the token is never shown in its description).
    public let options: VoiceOptions
    private let shell: CallShell
    private let outputs: CallOutputs
    private let audio: CallAudio
    /// Whether `start()` has published the opened audio and watches for the end (once per call).
    private let audioWatch = Mutex<Bool>(false)

    init(
        configuration: Configuration, options: VoiceOptions, mediaFactory: CallMediaFactory? = nil,
        logSink: LogSink = .standardError
    ) throws(PolyError) {
        // Before the call's I/O thread first uses OpenSSL: an app's `exit` must not free its state under that
        // thread while it still closes a session.
        OpenSSLExitCleanUp.disable()
        try configuration.validate()
        try options.validate()
        let token = try configuration.webrtcToken(for: options)
        let baseURL = try configuration.bridgeBaseURL(for: options)
        let redactor = Redactor()
        redactor.register(configuration.apiKey)
        redactor.register(token)
        let logger = Logger(level: configuration.logLevel, category: "call", sink: logSink, redactor: redactor)
        let audio = CallAudio(
            input: options.input, output: options.output, processing: options.audioProcessing, logger: logger)
        let outputs = CallOutputs(
            audioState: AudioState(
                inputName: audio.inputName, outputName: audio.outputName, isMuted: options.muted))
        let client = BridgeClient(
            configuration: BridgeClient.Configuration(baseURL: baseURL, webCallingToken: token),
            transport: BridgeTrust.transport(for: baseURL, caFile: BridgeTrust.caFile(options.trustedCAFile)))
        self.options = options
        self.outputs = outputs
        self.audio = audio
        shell = CallShell(
            options: options, client: client, mediaFactory: mediaFactory ?? TransportCallMedia.factory,
            logger: logger, audio: audio, outputs: outputs, seed: UInt64.random(in: 1...UInt64.max))
        logger.debug("call created with \(options)")
    }

    /// Opens the audio devices (or files, app buffers), provisions the call, publishes the microphone
    /// and returns once the bridge answered the offer.
    ///
    /// Watch `states` for `.connected` (media flowing). Calling `start()` again while the call is
    /// active (or after it ended) does nothing. Throws the `PolyError` the call failed with; a device
    /// or file that cannot be opened fails the call at once with `.voice(.deviceUnavailable)`, before
    /// anything is sent to the bridge.
    public func start() async throws {
        guard !state.isTerminal else { return }
        do {
            try audio.open()
        } catch {
            guard !state.isTerminal else { return }  // ended meanwhile
            outputs.states.yield(.failed(error))
            throw error
        }
        publishOpenedAudio()
        try await shell.start()
    }

    /// Shows the opened endpoints' names (device names instead of "default device") and their device
    /// changes on `audioStates`, and releases the audio once the call has ended, whichever way it ended.
    private func publishOpenedAudio() {
        let first = audioWatch.withLock { started -> Bool in
            defer { started = true }
            return !started
        }
        guard first else { return }
        var state = outputs.audioStates.latest ?? AudioState()
        state.inputName = audio.inputName
        state.outputName = audio.outputName
        if state != outputs.audioStates.latest { outputs.audioStates.yield(state) }
        audio.forwardDeviceEvents(to: outputs.audioStates)
        let states = outputs.states.stream()
        Task { [audio] in
            for await _ in states {}
            audio.close()
        }
    }

    /// Hangs up: closes the events socket, then the media, then deletes the call on the bridge (best effort).
    /// Idempotent; returns after everything is released and `states` ended with `.ended` or `.failed`.
    public func end() async {
        await shell.end()
    }

    /// Sends silence instead of the microphone (RTP keeps flowing), or the microphone again.
    /// Tests: feeds the call-state machine an input as the shell's watchers would (e.g. an address change).
    func inject(_ input: CallInput) { shell.send(.call(input)) }

    /// Sends DTMF `digits` (0-9, *, #, A-D; up to 64) on the call's audio, each `duration` long (40-1000 ms)
    /// with 100 ms between them: as RFC 4733 telephone-events when the bridge negotiated them, else as
    /// in-band tones mixed into the microphone audio. Returns which was used. Throws `.invalidConfiguration`
    /// for bad digits or duration, `.voice(.mediaFailed)` unless the call is connected.
    @discardableResult
    public func sendDTMF(_ digits: String, duration: Duration = .milliseconds(160)) async throws(PolyError)
        -> DTMFMethod
    {
        do { _ = try DTMFDigit.parse(digits) } catch {
            throw .invalidConfiguration(field: "digits", reason: error.description)
        }
        guard DTMFSender.durations.contains(duration) else {
            throw .invalidConfiguration(field: "duration", reason: "a DTMF digit lasts 40-1000 ms, not \(duration)")
        }
        do { return try await shell.sendDTMF(digits, duration: duration) } catch {
            throw .voice(.mediaFailed("cannot send DTMF: \(error)"))
        }
    }

    public func setMuted(_ muted: Bool) {
        shell.send(.call(.setMuted(muted)))  // ordered with every other input of the call
        var state = outputs.audioStates.latest ?? AudioState()
        state.isMuted = muted
        if state != outputs.audioStates.latest { outputs.audioStates.yield(state) }
    }

    /// Whether the microphone is muted.
    public var isMuted: Bool { outputs.audioStates.latest?.isMuted ?? options.muted }

    /// Which side of the call's audio `setAudioDevice(_:for:)` moves.
    public enum AudioDeviceDirection: Sendable, Hashable {
        case input
        case output
    }

    /// Moves the call's audio to another device (by id or name substring) for `direction`.
    /// Throws `.voice(.deviceUnavailable)` when the call does not use a device in that direction or
    /// the device cannot be opened.
    public func setAudioDevice(_ device: String, for direction: AudioDeviceDirection) throws(PolyError) {
        let name = try audio.switchDevice(to: device, direction: direction)
        var state = outputs.audioStates.latest ?? AudioState()
        switch direction {
        case .input: state.inputName = name
        case .output: state.outputName = name
        }
        outputs.audioStates.yield(state)
    }

    /// The current state.
    public var state: CallState { outputs.states.latest ?? .idle }

    /// Every state change, starting with the current state; ends after `.ended` or `.failed`.
    public var states: AsyncStream<CallState> { outputs.states.stream() }

    /// Audio changes (mute, devices, the agent's playout paused by barge-in), starting with the current one.
    public var audioStates: AsyncStream<AudioState> { outputs.audioStates.stream() }

    /// Quality warnings raised and cleared (high RTT, jitter, loss, low MOS, constant input level).
    public var qualityWarnings: AsyncStream<QualityWarningEvent> { outputs.warnings.stream() }

    /// A snapshot of the media statistics (W3C inbound-rtp/outbound-rtp/remote-inbound-rtp audio fields).
    public var stats: MediaStats {
        get async { await shell.stats() }
    }

    /// The quality figures of the last one-second sample (MOS estimate, loss, active warnings).
    public var quality: CallQuality { outputs.latestQuality }

    /// Microphone and speaker levels of the last 20 ms.
    public var levels: CallAudioLevels { audio.meters.levels }

    /// Samples captured and played, device underruns and overruns, and whether voice processing (echo
    /// cancellation, noise suppression, gain control) runs on the microphone.
    public var audioCounters: CallAudioCounters { audio.counters }

    /// Whether a finite input (a WAV file without loop, an app stream that finished) was sent to its end.
    public var isInputFinished: Bool { audio.inputFinished }

    /// Time from `start()` to media connected (DTLS done), once connected.
    public var setupTime: Duration? {
        get async {
            guard let started = await shell.startedAt, let connected = await shell.connectedAt else { return nil }
            return connected - started
        }
    }

    /// The provisioned call (tests: to check that its token never reaches a log).
    var provisionedCall: ProvisionedCall? {
        get async { await shell.provisionedCall }
    }
}
