// The ICE agent's public inputs, outputs, events, states and remote parameters.
import PolyCore

/// Which side drives nomination (RFC 8445 §6.1.1).
public enum ICERole: Hashable, Sendable { case controlling, controlled }

/// A full agent checks; a lite agent (the bridge) only answers checks with host candidates.
public enum ICEMode: Hashable, Sendable { case full, lite }

/// How the controlling agent nominates.
public enum ICENomination: Hashable, Sendable {
    /// RFC 8445 §8.1.1: check first, then repeat the check on the chosen valid pair with USE-CANDIDATE.
    case regular
    /// USE-CANDIDATE on every check (RFC 5245 style): the first pair to succeed is selected; fastest.
    case aggressive
}

/// Connection states (the WebRTC `RTCIceConnectionState` set).
public enum ICEConnectionState: Hashable, Sendable {
    case new, checking, connected, completed, disconnected, failed, closed
}

/// The peer's ICE parameters from its SDP.
public struct ICERemoteParameters: Hashable, Sendable {
    public var credentials: ICECredentials
    public var candidates: [Candidate]
    /// `a=ice-lite`: then we must be the controlling agent.
    public var isLite: Bool

    public init(credentials: ICECredentials, candidates: [Candidate], isLite: Bool = false) {
        self.credentials = credentials
        self.candidates = candidates
        self.isLite = isLite
    }
}

/// The path media should use: send from `local` (a socket's bound address) to `remote`.
public struct ICESelectedPair: Hashable, Sendable {
    public var local: TransportAddress
    public var remote: TransportAddress
    public var localCandidate: Candidate
    public var remoteCandidate: Candidate
}

/// What the shell feeds the agent.
public enum ICEInput: Sendable {
    /// Start gathering from these bound socket addresses (one host candidate each).
    case gather(localAddresses: [TransportAddress])
    /// The peer's credentials and candidates (from its SDP); starts checks for a full agent.
    case remoteParameters(ICERemoteParameters)
    /// A TURN allocation (RFC 8656) of the shell's: `relayed` becomes a relay candidate, its own base, paired
    /// like a host; what the agent sends from it the shell wraps for `server`. `mapped` (the server's
    /// XOR-MAPPED-ADDRESS) is its related address. `localPreference` orders several relays (UDP above TCP
    /// above TLS, RFC 8445 §5.1.2.1).
    case relayCandidate(
        relayed: TransportAddress, mapped: TransportAddress?, server: TransportAddress, localPreference: UInt32)
    /// How many of the shell's TURN allocations are still under way: gathering does not finish early (before
    /// its quiet time or cap) while one may still bring a candidate. 0 once each has succeeded or failed.
    case pendingRelays(Int)
    /// One more remote candidate (trickle; not used by the bridge protocol).
    case remoteCandidate(Candidate)
    /// A datagram received on the socket bound to `to` from `from`. Non-STUN bytes come back as `.received`.
    case datagram(bytes: [UInt8], from: TransportAddress, to: TransportAddress)
    /// ICE restart: new local credentials, regather on these addresses; media stays on the old pair until
    /// a new one is selected after the next `.remoteParameters`.
    case restart(credentials: ICECredentials, localAddresses: [TransportAddress])
    /// Outage recovery (full agent): a consent check on the selected pair now, then one every
    /// `urgentProbeInterval` until one is answered, so a path that comes back is seen at once.
    /// Ignored without a selected pair, during a restart, after failure, and by a lite agent.
    case checkNow
    case close
}

/// Something the agent reports.
public enum ICEEvent: Hashable, Sendable {
    case candidateGathered(Candidate)
    /// All local candidates (no trickle: put these in the offer/answer).
    case gatheringComplete([Candidate])
    case stateChanged(ICEConnectionState)
    /// Media must now flow on this pair.
    case selectedPairChanged(ICESelectedPair)
    case roleChanged(ICERole)
    /// The selected pair answered a consent check (full agent) or the peer checked it (lite agent):
    /// the path works both ways now.
    case consentConfirmed
    /// A non-STUN datagram handed back untouched (the shell normally demultiplexes before).
    case received(bytes: [UInt8], from: TransportAddress, to: TransportAddress)
}

/// What the agent asks the shell to do.
public enum ICEOutput: Hashable, Sendable {
    case transmit(bytes: [UInt8], from: TransportAddress, to: TransportAddress)
    case event(ICEEvent)
}
