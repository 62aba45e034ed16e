// Errors the public API reports, with the PolyVoice mobile SDK's cases where they apply.
import PolyCore

/// Why the bridge refused to authorise a request.
public enum AuthError: Error, Hashable, Sendable {
    /// The web calling token was rejected (HTTP 401 on provisioning).
    case unauthorized
    /// The token is valid but not allowed to do this (HTTP 403, e.g. a mode the deployment rejects).
    case forbidden
    /// The per-call token was rejected on a per-call route (HTTP 401) or on the events socket (close 1008).
    case perCallTokenRejected
}

/// What went wrong with a voice call once the request was authorised.
public enum VoiceError: Error, Hashable, Sendable {
    /// A signaling step failed, e.g. "Bridge connect failed (502)".
    case signalingFailed(String)
    /// The media path (ICE, DTLS, SRTP, codec) failed.
    case mediaFailed(String)
    /// The call did not connect within the connect timeout.
    case timedOut
    /// The network was lost for longer than the reconnect timeout.
    case disconnected
    /// The call was interrupted by the system (e.g. the audio device went away for good).
    case interrupted
    /// The requested audio device does not exist or cannot be opened.
    case deviceUnavailable(String)
}

/// Every error PolyVoice reports. Descriptions are user-facing and never contain secrets.
public enum PolyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A configuration or option value is invalid; `field` names it (e.g. "environment", "codec.bitrate").
    case invalidConfiguration(field: String, reason: String)
    /// The bridge refused the credentials.
    case auth(AuthError)
    /// The network or transport failed below signaling (DNS, TCP, TLS, socket).
    case transport(String)
    /// The call itself failed.
    case voice(VoiceError)

    /// Whether trying the same operation again later may succeed without changing anything.
    ///
    /// Transport problems, signaling failures (bridge 5xx, 429), media failures, time-outs,
    /// disconnections and interruptions are retryable; invalid configuration, rejected
    /// credentials and missing devices are not.
    public var isRetryable: Bool {
        switch self {
        case .invalidConfiguration, .auth: false
        case .transport: true
        case .voice(let error):
            switch error {
            case .signalingFailed, .mediaFailed, .timedOut, .disconnected, .interrupted: true
            case .deviceUnavailable: false
            }
        }
    }

    public var description: String {
        let text: String
        switch self {
        case .invalidConfiguration(let field, let reason):
            text = "Invalid configuration: \(field) \(reason)"
        case .auth(.unauthorized):
            text = "The web calling token was rejected by the voice bridge"
        case .auth(.forbidden):
            text = "The voice bridge does not allow this request"
        case .auth(.perCallTokenRejected):
            text = "The voice bridge rejected the call's token"
        case .transport(let detail):
            text = "Network error: \(detail)"
        case .voice(.signalingFailed(let detail)):
            text = "Call signaling failed: \(detail)"
        case .voice(.mediaFailed(let detail)):
            text = "Call media failed: \(detail)"
        case .voice(.timedOut):
            text = "The call did not connect in time"
        case .voice(.disconnected):
            text = "The call was disconnected: the network did not come back in time"
        case .voice(.interrupted):
            text = "The call was interrupted"
        case .voice(.deviceUnavailable(let device)):
            text = "Audio device unavailable: \(device)"
        }
        // Details come from lower layers; strip anything that looks like a credential.
        return Redactor.redactPatterns(in: text)
    }
}
