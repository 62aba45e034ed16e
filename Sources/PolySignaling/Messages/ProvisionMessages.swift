// Section 1 of PROTOCOL.md: POST /api/v1/call and its response.

/// Body of `POST /api/v1/call`: `{"mode":"voice-agent"}`.
public struct ProvisionRequest: Codable, Equatable, Sendable {
    /// `"voice-agent"` for hosted bridges; the reference bridge also accepts `"echo"`.
    public var mode: String

    public init(mode: String = "voice-agent") { self.mode = mode }
}

/// The 200 response of `POST /api/v1/call`. Only `callId` and `creds.connectUrl` are mandatory.
public struct ProvisionResponse: Codable, Equatable, Sendable, CustomStringConvertible,
    CustomDebugStringConvertible, CustomReflectable
{
    public var callId: String
    public var creds: CallCredentials

    public init(callId: String, creds: CallCredentials) {
        self.callId = callId
        self.creds = creds
    }

    public var description: String { "ProvisionResponse(callId: \(callId), creds: \(creds))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

/// `creds` of a provision response. The per-call `token` is redacted in every description.
public struct CallCredentials: Codable, Equatable, Sendable, CustomStringConvertible,
    CustomDebugStringConvertible, CustomReflectable
{
    public var provider: String?
    /// Where to POST the offer (relative to the bridge base URL, usually).
    public var connectUrl: String
    /// The per-call token sent as `X-Call-Token` and as the events socket's first frame.
    public var token: String?
    public var trackName: String?
    public var iceServers: [ICEServer]?
    public var extra: CallExtras?

    public init(
        provider: String? = nil, connectUrl: String, token: String? = nil, trackName: String? = nil,
        iceServers: [ICEServer]? = nil, extra: CallExtras? = nil
    ) {
        self.provider = provider
        self.connectUrl = connectUrl
        self.token = token
        self.trackName = trackName
        self.iceServers = iceServers
        self.extra = extra
    }

    public var description: String {
        "CallCredentials(provider: \(provider ?? "nil"), connectUrl: \(connectUrl), token: \(Redaction.token(token)), "
            + "trackName: \(trackName ?? "nil"), iceServers: \(iceServers?.count ?? 0), extra: \(extra.map { "\($0)" } ?? "nil"))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

/// One entry of `creds.iceServers`; `urls` may be a JSON string or array on the wire.
/// `username` and `credential` are redacted in every description.
public struct ICEServer: Codable, Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    public var urls: [String]
    public var username: String?
    public var credential: String?

    public init(urls: [String], username: String? = nil, credential: String? = nil) {
        self.urls = urls
        self.username = username
        self.credential = credential
    }

    private enum CodingKeys: String, CodingKey { case urls, username, credential }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let single = try? container.decode(String.self, forKey: .urls) {
            urls = [single]
        } else {
            urls = try container.decode([String].self, forKey: .urls)
        }
        username = try container.decodeIfPresent(String.self, forKey: .username)
        credential = try container.decodeIfPresent(String.self, forKey: .credential)
    }

    /// The username is redacted too: TURN REST usernames (`<expiry>:<name>`) carry the call id.
    public var description: String {
        "ICEServer(urls: \(urls), username: \(Redaction.token(username)), credential: \(Redaction.token(credential)))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

/// `creds.extra`: the routes beyond connect, and the reference bridge's extensions.
public struct CallExtras: Codable, Equatable, Sendable, CustomStringConvertible {
    public var eventsUrl: String?
    public var pullUrl: String?
    public var renegotiateUrl: String?
    /// Extension: ICE restart route.
    public var iceRestartUrl: String?
    /// Extension: how long the bridge keeps a call after its events socket dropped.
    public var resumeGraceSeconds: Double?

    public init(
        eventsUrl: String? = nil, pullUrl: String? = nil, renegotiateUrl: String? = nil,
        iceRestartUrl: String? = nil, resumeGraceSeconds: Double? = nil
    ) {
        self.eventsUrl = eventsUrl
        self.pullUrl = pullUrl
        self.renegotiateUrl = renegotiateUrl
        self.iceRestartUrl = iceRestartUrl
        self.resumeGraceSeconds = resumeGraceSeconds
    }

    public var description: String {
        "CallExtras(eventsUrl: \(eventsUrl ?? "nil"), pullUrl: \(pullUrl ?? "nil"), "
            + "renegotiateUrl: \(renegotiateUrl ?? "nil"), iceRestartUrl: \(iceRestartUrl ?? "nil"), "
            + "resumeGraceSeconds: \(resumeGraceSeconds.map { "\($0)" } ?? "nil"))"
    }
}
