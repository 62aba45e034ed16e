// TURN servers the bridge hands to its callers, with per-call credentials a coturn sharing the secret accepts
// (`use-auth-secret`), so the bridge never gives out a long-lived password.
import FoundationEssentials
import PolyNet
import PolySignaling

/// TURN URLs and the REST-API secret shared with their server.
public struct BridgeTURNServers: Sendable, CustomStringConvertible {
    /// `turn:` / `turns:` URLs, as callers should use them.
    public var urls: [String]
    /// The `static-auth-secret` of the TURN server (never logged).
    public var secret: String
    /// How long each call's credentials stay valid.
    public var lifetime: Duration

    public init(urls: [String], secret: String, lifetime: Duration = .seconds(86_400)) {
        self.urls = urls
        self.secret = secret
        self.lifetime = lifetime
    }

    /// The `iceServers` entry for call `callID` provisioned at `now` (seconds since 1970).
    public func iceServer(callID: String, now: Date = Date()) -> ICEServer {
        let expiry = Int(now.timeIntervalSince1970) + Int(lifetime.components.seconds)
        let credentials = TURNRESTCredentials(secret: secret, name: callID, expiry: expiry)
        return ICEServer(urls: urls, username: credentials.username, credential: credentials.password)
    }

    public var description: String { "BridgeTURNServers(urls: \(urls), secret: …, lifetime: \(lifetime))" }
}
