// The path media uses, with the W3C webrtc-stats names of RTCIceCandidateStats.

/// The selected candidate pair: which kind of path the call took (direct or through a TURN relay).
public struct CandidatePairStats: Sendable, Equatable, Codable {
    /// `host`, `srflx`, `prflx` or `relay`.
    public var localCandidateType: String
    public var remoteCandidateType: String
    /// How a relay candidate reaches its TURN server (`udp`, `tcp`, `tls`); nil for the other types.
    public var relayProtocol: String?

    public init(localCandidateType: String, remoteCandidateType: String, relayProtocol: String? = nil) {
        self.localCandidateType = localCandidateType
        self.remoteCandidateType = remoteCandidateType
        self.relayProtocol = relayProtocol
    }
}
