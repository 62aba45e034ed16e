// Account-wide settings, validated before any call is placed.
import FoundationEssentials
import PolyCore

/// Settings shared by the calls of one account (as `PolyMessaging.initialize` takes on mobile).
///
/// `description` never shows the key or token.
public struct Configuration: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The PolyAI API key of the account.
    public var apiKey: String
    /// Which bridge deployment calls go to.
    public var environment: Environment
    /// Identifies this host/app to the bridge (optional).
    public var hostIdentifier: String?
    /// The web calling token used to provision calls; `VoiceOptions.webrtcToken` overrides it per call.
    public var webrtcToken: String?
    /// How much is logged. Default `.error`.
    public var logLevel: LogLevel

    public init(
        apiKey: String, environment: Environment = .us, hostIdentifier: String? = nil,
        webrtcToken: String? = nil, logLevel: LogLevel = .error
    ) {
        self.apiKey = apiKey
        self.environment = environment
        self.hostIdentifier = hostIdentifier
        self.webrtcToken = webrtcToken
        self.logLevel = logLevel
    }

    /// Throws `.invalidConfiguration` naming the first bad field.
    public func validate() throws(PolyError) {
        try Self.checkCredential(apiKey, field: "apiKey")
        try environment.validate()
        if let hostIdentifier {
            guard !hostIdentifier.isEmpty, hostIdentifier.count <= 256,
                hostIdentifier.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
            else {
                throw .invalidConfiguration(
                    field: "hostIdentifier", reason: "must be 1-256 printable ASCII characters without spaces")
            }
        }
        if let webrtcToken { try Self.checkCredential(webrtcToken, field: "webrtcToken") }
    }

    /// The web calling token for a call: the per-call override wins, else this configuration's.
    public func webrtcToken(for options: VoiceOptions) throws(PolyError) -> String {
        guard let token = options.webrtcToken ?? webrtcToken else {
            throw .invalidConfiguration(field: "webrtcToken", reason: "is required (in Configuration or VoiceOptions)")
        }
        return token
    }

    /// The bridge base URL for a call: the per-call `signalingHost` wins, else the environment's.
    public func bridgeBaseURL(for options: VoiceOptions) throws(PolyError) -> URL {
        if let host = options.signalingHost { return try Environment.validatedBase(host, field: "signalingHost") }
        return try environment.bridgeBaseURL
    }

    /// A credential must be non-empty and fit in an HTTP header unchanged.
    static func checkCredential(_ value: String, field: String) throws(PolyError) {
        guard !value.isEmpty else { throw .invalidConfiguration(field: field, reason: "must not be empty") }
        guard value.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw .invalidConfiguration(field: field, reason: "must be printable ASCII without spaces")
        }
    }

    public var description: String {
        "Configuration(environment: \(environment), hostIdentifier: \(hostIdentifier ?? "none"), "
            + "apiKey: \(Redactor.marker(for: apiKey)), webrtcToken: \(webrtcToken.map(Redactor.marker) ?? "none"), "
            + "logLevel: \(logLevel))"
    }

    public var debugDescription: String { description }
}
