// The JSON-lines messages of Tests/Interop/aiortc_peer.py (one request line, one reply line).

/// One request to the aiortc peer; nil fields are left out.
public struct AiortcRequest: Encodable, Sendable {
    public var op: String
    public var sdp: String?
    /// The tone (Hz) the peer sends.
    public var tone: Double?
    /// A 16-bit 48 kHz WAV the peer sends (looped) instead of a tone.
    public var wav: String?
    /// `wait`: the connection state to wait for, and for how long (seconds).
    public var state: String?
    public var timeout: Double?
    /// `report`: seconds of received audio to skip before measuring.
    public var skip: Double?
    /// `offer`/`answer`/`call_bridge`: send back what is received instead of a tone.
    public var echo: Bool?
    /// `save`: where the received audio goes (WAV).
    public var path: String?
    /// `call_bridge`: the bridge's base URL (127.0.0.0/8 only), web calling token and mode.
    public var url: String?
    public var token: String?
    public var mode: String?

    public init(
        op: String, sdp: String? = nil, tone: Double? = nil, wav: String? = nil, state: String? = nil,
        timeout: Double? = nil, skip: Double? = nil, echo: Bool? = nil, path: String? = nil, url: String? = nil,
        token: String? = nil, mode: String? = nil
    ) {
        self.op = op
        self.sdp = sdp
        self.tone = tone
        self.wav = wav
        self.state = state
        self.timeout = timeout
        self.skip = skip
        self.echo = echo
        self.path = path
        self.url = url
        self.token = token
        self.mode = mode
    }
}

/// The peer's reply; which fields are set depends on the request.
public struct AiortcReply: Decodable, Sendable {
    public var ok: Bool
    public var error: String?
    public var sdp: String?
    public var state: String?
    // `report`
    public var packetsReceived: Int?
    public var packetsSent: Int?
    public var samples: Int?
    public var rms: Double?
    public var frequency: Double?
    public var connectionState: String?
    public var iceState: String?
    public var dtlsState: String?
    public var srtpProfile: String?
    /// `call_bridge`
    public var callId: String?

    enum CodingKeys: String, CodingKey {
        case ok, error, sdp, state, samples, rms, frequency
        case callId = "call_id"
        case packetsReceived = "packets_received"
        case packetsSent = "packets_sent"
        case connectionState = "connection_state"
        case iceState = "ice_state"
        case dtlsState = "dtls_state"
        case srtpProfile = "srtp_profile"
    }
}

/// Why talking to the peer failed.
public enum AiortcPeerError: Error, CustomStringConvertible, Sendable {
    case launch(String)
    case timedOut(op: String, after: Duration)
    case exited(op: String)
    case failed(String)
    case malformedReply(String)

    public var description: String {
        switch self {
        case .launch(let text): "aiortc peer did not start: \(text)"
        case .timedOut(let op, let after): "aiortc peer gave no reply to \(op) within \(after)"
        case .exited(let op): "aiortc peer exited before replying to \(op)"
        case .failed(let text): "aiortc peer: \(text)"
        case .malformedReply(let text): "aiortc peer sent an unreadable reply: \(text)"
        }
    }
}
