// A provisioned call with every route resolved to an absolute URL.
import FoundationEssentials

/// The result of `BridgeClient.provision`: the call's id, per-call token and resolved routes.
/// The token is redacted in every description.
public struct ProvisionedCall: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    public var callId: String
    /// The per-call token (`X-Call-Token` and the events socket's auth frame); empty if the bridge gave none.
    public var token: String
    public var connectURL: URL
    /// The events socket URL, already `ws`/`wss`.
    public var eventsURL: URL?
    public var pullURL: URL?
    public var renegotiateURL: URL?
    /// Extension: ICE restart route.
    public var iceRestartURL: URL?
    /// Extension: how long the bridge keeps the call after its events socket dropped.
    public var resumeGraceSeconds: Double?
    public var iceServers: [ICEServer]
    public var trackName: String?
    public var provider: String?

    /// Resolves the routes of `response` against `base`.
    public init(response: ProvisionResponse, base: URL) throws(SignalingError) {
        let creds = response.creds
        let extra = creds.extra ?? CallExtras()
        func resolve(_ reference: String?) throws(SignalingError) -> URL? {
            guard let reference else { return nil }
            return try BridgeURLs.resolve(reference, against: base)
        }
        guard !response.callId.isEmpty else { throw .malformedResponse(route: "provision", .invalidValue("callId")) }
        callId = response.callId
        token = creds.token ?? ""
        connectURL = try BridgeURLs.resolve(creds.connectUrl, against: base)
        eventsURL = try resolve(extra.eventsUrl).map { url throws(SignalingError) in
            try BridgeURLs.webSocketURL(for: url)
        }
        pullURL = try resolve(extra.pullUrl)
        renegotiateURL = try resolve(extra.renegotiateUrl)
        iceRestartURL = try resolve(extra.iceRestartUrl)
        resumeGraceSeconds = extra.resumeGraceSeconds
        iceServers = creds.iceServers ?? []
        trackName = creds.trackName
        provider = creds.provider
    }

    public var description: String {
        "ProvisionedCall(callId: \(callId), token: \(Redaction.token(token)), connect: \(connectURL.absoluteString), "
            + "events: \(eventsURL?.absoluteString ?? "nil"), iceRestart: \(iceRestartURL != nil))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
