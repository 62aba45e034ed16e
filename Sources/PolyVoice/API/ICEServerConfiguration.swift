// STUN and TURN servers an app adds to those the bridge provisions (a company's own TURN server, say).

/// One STUN/TURN server, as a W3C `RTCIceServer`: `stun:`/`turn:`/`turns:` URLs and, for TURN, the
/// credentials. The username and credential are secrets: no description prints them.
public struct ICEServerConfiguration: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public var urls: [String]
    public var username: String?
    public var credential: String?

    public init(urls: [String], username: String? = nil, credential: String? = nil) {
        self.urls = urls
        self.username = username
        self.credential = credential
    }

    public var description: String {
        "ICEServerConfiguration(urls: \(urls), username: \(username == nil ? "nil" : "…"), "
            + "credential: \(credential == nil ? "nil" : "…"))"
    }
    public var debugDescription: String { description }
}
