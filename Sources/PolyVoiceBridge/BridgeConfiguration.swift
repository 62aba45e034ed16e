// Everything `Bridge` needs: where to listen, who may call, which agent answers, limits and timeouts.
import FoundationEssentials
import PolyNet
import PolySignaling

/// The configuration of a reference bridge.
public struct BridgeConfiguration: Sendable {
    /// Address to bind (default loopback).
    public var host: String
    /// Port to bind; 0 picks a free one (read it from `Bridge.start()`).
    public var port: Int
    /// Accepted web calling tokens (`Authorization: Bearer`). Empty refuses to start unless `allowAnyToken`.
    public var tokens: [String]
    /// Accept any bearer token (development only).
    public var allowAnyToken: Bool
    /// The agent of `voice-agent` calls (`echo` calls always get `EchoAgent`).
    public var agent: AgentSpec
    /// Modes `POST /api/v1/call` accepts; others are answered 403.
    public var allowedModes: Set<String>
    /// `HOST:PORT` advertised in ICE candidates instead of the bound address (1:1 NAT, relays). With
    /// per-call ports only the host is used; with `mediaPort` the candidates carry exactly `HOST:PORT`.
    public var advertise: String?
    /// nil (default): each call binds its own UDP port. A number: one UDP port for the media of every call
    /// on `mediaIP` (0 picks a free one; read it from `Bridge.mediaAddress`), demultiplexed by ICE ufrag
    /// and then by remote address. See docs/ARCHITECTURE.md for the choice.
    public var mediaPort: Int?
    /// At most this many concurrent calls; further provisions get 503 with `Retry-After`.
    public var maxCalls: Int
    /// Where agents record the caller (`<callId>.wav`) and the script timeline; nil records nothing.
    public var recordDirectory: URL?
    /// Larger request bodies are answered 413.
    public var maxBodyBytes: Int
    /// Per-client request rate limit (429 with `Retry-After` when exceeded).
    public var rateLimit: RateLimiter.Configuration
    /// Setup timeout, events resume grace (advertised as `resumeGraceSeconds`) and media timeout.
    public var timeouts: CallReaper.Timeouts
    /// How often the reaper looks at media activity and deadlines.
    public var reapInterval: Duration
    /// An events socket that sends no auth frame for this long is closed with 1008.
    public var eventsAuthTimeout: Duration
    /// The media engine.
    public var media: BridgeMediaFactory
    /// Structured log (text or JSON lines).
    public var log: BridgeLog
    /// The rate limiter's client key of a request: by default the peer's IP address, one bucket per client.
    public var clientKey: @Sendable (HTTPRequest) -> String
    /// TURN servers handed to every call in `iceServers`, with time-limited credentials (nil: none).
    public var turn: BridgeTURNServers?
    /// Slow clients (docs/BRIDGE-LIMITS.md): a connection that has not sent its whole request head this long
    /// after connecting is closed (whole seconds, at least 1).
    public var requestHeadTimeout: Duration = .seconds(10)
    /// A request body that has not fully arrived this long after its head is answered 408 and closed.
    public var requestBodyTimeout: Duration = .seconds(10)
    /// An events socket idle this long is pinged, and closed if it answers nothing within
    /// `eventsPongTimeout` (a client that stopped reading). Whole seconds; zero turns the pings off.
    public var eventsPingInterval: Duration = .seconds(10)
    public var eventsPongTimeout: Duration = .seconds(10)
    /// An events socket with more unsent events than this queued (its client is not reading) is dropped.
    public var eventsMaxQueuedFrames: Int = 256
    /// The echo agent's media profile (`--agent-profile`): faithful echo by default.
    public var agentProfile: EchoProfile = .faithful
    /// Every agent's bitrate and band over its profile's (`--agent-bitrate`, `--agent-bandwidth`).
    public var agentCoding = AgentCoding()
    /// How often at most the bridge returns freed heap to the system after calls end (`HeapTrimSchedule`);
    /// nil never does.
    public var heapTrimInterval: Duration? = .seconds(30)

    public init(
        host: String = "127.0.0.1", port: Int = 0, tokens: [String] = [], allowAnyToken: Bool = false,
        agent: AgentSpec = .echo(delayMilliseconds: 0), allowedModes: Set<String> = ["voice-agent", "echo"],
        advertise: String? = nil, mediaPort: Int? = nil, maxCalls: Int = 100, recordDirectory: URL? = nil,
        maxBodyBytes: Int = 64 * 1024,
        rateLimit: RateLimiter.Configuration = .init(), timeouts: CallReaper.Timeouts = .init(),
        reapInterval: Duration = .milliseconds(100), eventsAuthTimeout: Duration = .seconds(5),
        media: BridgeMediaFactory = .unavailable,
        log: BridgeLog = BridgeLog(), clientKey: @escaping @Sendable (HTTPRequest) -> String = { $0.remoteAddress }
    ) {
        self.host = host
        self.port = port
        self.tokens = tokens
        self.allowAnyToken = allowAnyToken
        self.agent = agent
        self.allowedModes = allowedModes
        self.advertise = advertise
        self.mediaPort = mediaPort
        self.maxCalls = maxCalls
        self.recordDirectory = recordDirectory
        self.maxBodyBytes = maxBodyBytes
        self.rateLimit = rateLimit
        self.timeouts = timeouts
        self.reapInterval = reapInterval
        self.eventsAuthTimeout = eventsAuthTimeout
        self.media = media
        self.log = log
        self.clientKey = clientKey
    }
}

extension BridgeConfiguration {
    /// The address media sockets bind: the HTTP host, except that a wildcard host binds media on loopback
    /// (candidates must name a reachable address; use `advertise` for others).
    public var mediaIP: IPAddress {
        guard let ip = IPAddress(host), ip != .anyV4 else { return .loopbackV4 }
        return ip
    }
}

/// Why a bridge could not start.
public enum BridgeError: Error, Equatable, Sendable, CustomStringConvertible {
    case noTokens
    case agent(AgentError)
    case bind(String)
    case alreadyStarted

    public var description: String {
        switch self {
        case .noTokens: "no web calling token configured (use a token file, POLYVOICE_BRIDGE_TOKEN or allow any token)"
        case .agent(let error): "agent: \(error)"
        case .bind(let why): "cannot listen: \(why)"
        case .alreadyStarted: "the bridge is already running"
        }
    }
}
