// Per-call options: overrides, audio endpoints, codec and timeouts.
import FoundationEssentials
import PolyCore
import PolySession

/// Options for one call. `description` never shows the token.
public struct VoiceOptions: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// A web calling token for this call only; wins over `Configuration.webrtcToken`.
    public var webrtcToken: String?
    /// A bridge base URL for this call only; wins over `Configuration.environment`.
    public var signalingHost: URL?
    public var input: AudioInput
    public var output: AudioOutput
    public var codec: CodecSettings
    /// Which paths the call may use (`.relay`: TURN only). Default `.all`.
    public var iceTransportPolicy: ICETransportPolicy = .all
    /// STUN/TURN servers used besides the ones the bridge provisions.
    public var iceServers: [ICEServerConfiguration] = []
    /// A PEM file of CA certificates trusted besides the system store for the bridge's HTTPS (REST and the
    /// events socket) and TURN over TLS (`turns:`); nil: the `POLYVOICE_CA_FILE` environment variable's file,
    /// if set. A server that does not verify fails the call with a transport error, never unverified.
    public var trustedCAFile: String?
    /// Start with the microphone muted.
    public var muted: Bool
    /// Echo cancellation (the speaker's audio as reference), noise suppression and gain control on the
    /// microphone. `.auto` (the default) turns them on when input and output are both devices and
    /// off for files, app buffers and null; `.off` sends the microphone untouched.
    public var audioProcessing: AudioProcessing
    /// How long a dropped network may take to come back before the call fails (default 30 s).
    public var reconnectTimeout: Duration
    /// How long provisioning through media connected may take (default 30 s).
    public var connectTimeout: Duration
    /// Seeded loss, bursts, delay, jitter and outages applied to this call's own packets, each direction
    /// (from the moment media connects; outages count from there). For testing agents on a bad line without
    /// a relay process. nil (default): none.
    public var networkImpairment: NetworkImpairment?

    public init(
        webrtcToken: String? = nil, signalingHost: URL? = nil, input: AudioInput = .defaultDevice,
        output: AudioOutput = .defaultDevice, codec: CodecSettings = CodecSettings(), muted: Bool = false,
        audioProcessing: AudioProcessing = .auto, reconnectTimeout: Duration = .seconds(30),
        connectTimeout: Duration = .seconds(30), networkImpairment: NetworkImpairment? = nil
    ) {
        self.networkImpairment = networkImpairment
        self.webrtcToken = webrtcToken
        self.signalingHost = signalingHost
        self.input = input
        self.output = output
        self.codec = codec
        self.muted = muted
        self.audioProcessing = audioProcessing
        self.reconnectTimeout = reconnectTimeout
        self.connectTimeout = connectTimeout
    }

    /// Throws `.invalidConfiguration` naming the first bad field.
    public func validate() throws(PolyError) {
        if let webrtcToken { try Configuration.checkCredential(webrtcToken, field: "webrtcToken") }
        if let signalingHost { _ = try Environment.validatedBase(signalingHost, field: "signalingHost") }
        do {
            try codec.validate()
        } catch {
            throw .invalidConfiguration(field: error.field, reason: error.reason)
        }
        guard reconnectTimeout >= .zero, reconnectTimeout <= .seconds(3600) else {
            throw .invalidConfiguration(field: "reconnectTimeout", reason: "must be in 0...3600 s")
        }
        guard connectTimeout > .zero, connectTimeout <= .seconds(600) else {
            throw .invalidConfiguration(field: "connectTimeout", reason: "must be in (0, 600] s")
        }
        do { try networkImpairment?.validate() } catch {
            throw .invalidConfiguration(field: "networkImpairment", reason: error.reason)
        }
        switch input {
        case .buffer(_, let rate) where !(8_000...48_000).contains(rate):
            throw .invalidConfiguration(field: "input", reason: "buffer sample rate must be in 8000...48000")
        case .device(let name) where name.isEmpty:
            throw .invalidConfiguration(field: "input", reason: "device name must not be empty")
        default: break
        }
        switch output {
        case .buffer(_, let rate) where !(8_000...48_000).contains(rate):
            throw .invalidConfiguration(field: "output", reason: "buffer sample rate must be in 8000...48000")
        case .device(let name) where name.isEmpty:
            throw .invalidConfiguration(field: "output", reason: "device name must not be empty")
        default: break
        }
    }

    public var description: String {
        "VoiceOptions(input: \(input.displayName), output: \(output.displayName), muted: \(muted), "
            + "audioProcessing: \(audioProcessing), "
            + "webrtcToken: \(webrtcToken.map(Redactor.marker) ?? "default"), "
            + "signalingHost: \(signalingHost?.host ?? "default"), reconnectTimeout: \(reconnectTimeout), "
            + "connectTimeout: \(connectTimeout))"
    }

    public var debugDescription: String { description }
}
