// Tunables of the ICE agent, with defaults from RFC 8445 / RFC 7675 and PROTOCOL.md.
import PolyCore

/// How an `ICEAgent` behaves. Times are `Duration`s; the agent never reads a clock.
public struct ICEConfiguration: Sendable {
    public var mode: ICEMode
    public var role: ICERole
    public var credentials: ICECredentials
    /// Tie-breaker for role conflicts; draw it from a cryptographic generator.
    public var tieBreaker: UInt64
    /// STUN servers (from the provision response's `iceServers`) for server-reflexive candidates.
    public var stunServers: [TransportAddress] = []
    /// The W3C `iceTransportPolicy` "relay": only relay candidates are offered and paired (host sockets stay
    /// the bases the shell's TURN clients talk from, but no host or reflexive candidate is gathered).
    public var relayOnly = false
    public var nomination: ICENomination = .regular
    /// Ta: pacing of ordinary checks.
    public var pacing: Duration = .milliseconds(50)
    /// First retransmission timeout of a check; doubles per retransmission up to `maxRTO`.
    public var initialRTO: Duration = .milliseconds(250)
    public var maxRTO: Duration = .seconds(2)
    /// Transmissions of one check before its pair fails.
    public var maxCheckTransmissions = 7
    /// Gathering ends this long after the last new candidate (PROTOCOL.md: 200 ms)...
    public var gatheringQuiet: Duration = .milliseconds(200)
    /// ...or at this cap (2 s), or as soon as no STUN server transaction is pending.
    public var gatheringCap: Duration = .seconds(2)
    /// Regular nomination: nominate the best valid pair at once if no better pair can still succeed,
    /// else after this wait from the first success.
    public var nominationWait: Duration = .milliseconds(100)
    /// RFC 7675 consent checks every interval, randomised ±20 %.
    public var consentInterval: Duration = .seconds(5)
    /// `disconnected` once a consent check stays unanswered this long (full agent); a lite agent
    /// reports it after `consentInterval` + this without a check from the peer.
    public var disconnectedAfter: Duration = .seconds(3)
    /// While disconnected, consent checks are sent this often so recovery is seen quickly.
    public var disconnectedProbeInterval: Duration = .seconds(1)
    /// After `.checkNow` (the call is reconnecting), consent checks are sent this often until one is answered.
    public var urgentProbeInterval: Duration = .milliseconds(200)
    /// `failed` after this long without consent (RFC 7675: 30 s).
    public var failedAfter: Duration = .seconds(30)
    /// Seeds transaction ids and consent jitter (not secrets).
    public var randomSeed: UInt64

    public init(
        mode: ICEMode = .full, role: ICERole = .controlling, credentials: ICECredentials, tieBreaker: UInt64,
        randomSeed: UInt64
    ) {
        self.mode = mode
        self.role = mode == .lite ? .controlled : role
        self.credentials = credentials
        self.tieBreaker = tieBreaker
        self.randomSeed = randomSeed
    }
}
