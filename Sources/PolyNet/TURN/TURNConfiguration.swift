// What a `TURNClient` needs to know: the server, how bytes reach it, the credentials and its timers.
import PolyCore

/// How the shell carries the client's bytes to the TURN server.
public enum TURNTransport: Hashable, Sendable {
    /// One STUN or ChannelData message per datagram; requests are retransmitted (RFC 8489 §6.2.1).
    case udp
    /// TCP or TLS: a byte stream the client deframes itself; no retransmission, ChannelData padded to 4 bytes.
    case stream
}

/// The tunables of one TURN allocation. Times are `Duration`s; the client never reads a clock.
///
/// `username` and `password` are secrets (TURN REST usernames carry the call id): no description prints them.
public struct TURNClientConfiguration: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The server's transport address (resolved by the shell).
    public var server: TransportAddress
    /// How errors name the server, e.g. `turn.example.org:3478` (never a credential).
    public var serverName: String
    public var transport: TURNTransport
    public var username: String
    public var password: String
    /// LIFETIME asked for in Allocate and Refresh requests (the server may grant less).
    public var requestedLifetime: Duration = .seconds(600)
    /// Adds FINGERPRINT to every STUN message (helps a shell that demultiplexes one socket).
    public var fingerprint = true
    /// UDP: first retransmission timeout (RFC 8489: 500 ms), doubling per retransmission.
    public var initialRTO: Duration = .milliseconds(500)
    /// UDP: transmissions of a request (Rc = 7); after the last the client waits `finalWaitFactor` × RTO.
    public var maxTransmissions = 7
    /// UDP: Rm = 16.
    public var finalWaitFactor = 16
    /// Stream transports: how long a request may stay unanswered (RFC 8489 Ti = 39.5 s).
    public var streamTransactionTimeout: Duration = .milliseconds(39_500)
    /// Permissions last 300 s (RFC 8656 §9); they are refreshed this often.
    public var permissionRefreshInterval: Duration = .seconds(240)
    /// Channel bindings last 600 s (RFC 8656 §12); they are refreshed this often.
    public var channelRefreshInterval: Duration = .seconds(540)
    /// Sends to a peer whose permission is still being created are held (then sent); at most this many per IP.
    public var maxQueuedPerPeer = 16
    /// Stream transports: the largest frame buffered (larger ones are skipped).
    public var maxStreamFrameLength = 4096
    /// Seeds transaction ids. Draw it from `SystemRandomNumberGenerator` in production so ids are unpredictable.
    public var randomSeed: UInt64

    public init(
        server: TransportAddress, serverName: String? = nil, transport: TURNTransport, username: String,
        password: String, randomSeed: UInt64
    ) {
        self.server = server
        self.serverName = serverName ?? server.description
        self.transport = transport
        self.username = username
        self.password = password
        self.randomSeed = randomSeed
    }

    public var description: String {
        "TURNClientConfiguration(server: \(serverName), transport: \(transport), username: …, password: …)"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
