// Sections 2, 3 and the ICE restart extension of PROTOCOL.md: SDP offer/answer bodies.

/// Body of `POST {connectUrl}`: the client's complete (non-trickle) offer and the mic m-line's mid.
public struct ConnectRequest: Codable, Equatable, Sendable {
    public var sdp: String
    public var mid: String

    public init(sdp: String, mid: String = "0") {
        self.sdp = sdp
        self.mid = mid
    }
}

/// `{"sdp": …}`: connect/pull/ICE-restart responses, and renegotiate/ICE-restart requests.
public struct SDPMessage: Codable, Equatable, Sendable {
    public var sdp: String

    public init(sdp: String) { self.sdp = sdp }
}

/// The empty JSON object `{}` (body of a pull).
public struct EmptyMessage: Codable, Equatable, Sendable {
    public init() {}
}
