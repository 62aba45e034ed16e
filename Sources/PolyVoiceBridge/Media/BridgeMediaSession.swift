// How media plugs into the bridge: one session per call, created by a factory the configuration holds.
import PolyCore

/// Why a media operation failed; mapped to HTTP statuses by the routes.
public enum BridgeMediaError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The SDP could not be parsed or negotiated (→ 400).
    case invalidSDP(String)
    /// The operation is not possible in the session's state (→ 409).
    case wrongState(String)
    /// The bridge has no media engine or it failed (→ 503).
    case unavailable(String)

    public var description: String {
        switch self {
        case .invalidSDP(let why): "invalid SDP: \(why)"
        case .wrongState(let why): "wrong state: \(why)"
        case .unavailable(let why): "media unavailable: \(why)"
        }
    }
}

/// Counters of one media session, for `/metrics` and the reaper.
public struct BridgeMediaStats: Sendable, Equatable {
    /// ICE and DTLS completed: media can flow (a pull is allowed from then on).
    public var isConnected: Bool
    /// When the last media packet from the caller arrived.
    public var lastPacketAt: Instant?
    public var packetsReceived: UInt64
    public var packetsSent: UInt64
    public var packetsLost: UInt64
    /// Interarrival jitter of the caller's stream, in seconds.
    public var jitterSeconds: Double
    /// Caller audio the jitter buffer concealed (PLC/FEC), in seconds.
    public var concealedSeconds: Double
    /// Inbound SRTP/SRTCP packets dropped: authentication tag wrong (forged or corrupted), replayed,
    /// or refused by libsrtp for another reason (bad header, length).
    public var srtpAuthFailures: UInt64 = 0
    public var srtpReplayFailures: UInt64 = 0
    public var srtpOtherFailures: UInt64 = 0

    public init(
        isConnected: Bool = false, lastPacketAt: Instant? = nil, packetsReceived: UInt64 = 0, packetsSent: UInt64 = 0,
        packetsLost: UInt64 = 0, jitterSeconds: Double = 0, concealedSeconds: Double = 0
    ) {
        self.isConnected = isConnected
        self.lastPacketAt = lastPacketAt
        self.packetsReceived = packetsReceived
        self.packetsSent = packetsSent
        self.packetsLost = packetsLost
        self.jitterSeconds = jitterSeconds
        self.concealedSeconds = concealedSeconds
    }
}

/// The media of one call as the bridge sees it. Methods may be called from any thread.
public protocol BridgeMediaSession: AnyObject, Sendable {
    /// Applies the caller's offer (first connect or ICE restart) and returns the answer.
    func applyOffer(_ sdp: String, mid: String?) async throws(BridgeMediaError) -> String
    /// An offer adding the agent's audio m-line (receive-only for the caller). Requires `isConnected`.
    func createPullOffer() async throws(BridgeMediaError) -> String
    /// Applies the caller's answer to the last pull offer.
    func applyPullAnswer(_ sdp: String) async throws(BridgeMediaError)
    /// A recent snapshot of the counters (cheap; called by the reaper every tick).
    var stats: BridgeMediaStats { get }
    /// Ends the media (DTLS close_notify, stops the agent and writes its recordings) in the background.
    /// Idempotent.
    func close()
    /// Blocks until a `close()` has finished (recordings written) or `timeout` passed; true if finished.
    func waitUntilClosed(timeout: Duration) -> Bool
}

extension BridgeMediaSession {
    /// Sessions whose `close()` is synchronous are closed when it returns.
    public func waitUntilClosed(timeout: Duration) -> Bool { true }
}

/// What a media factory gets for a new call.
public struct BridgeMediaContext: Sendable {
    public var callID: String
    /// The mode the caller asked for (`voice-agent` or `echo`).
    public var mode: String
    /// Creates the call's agent (the media shell drives it every 20 ms).
    public var makeAgent: @Sendable () throws -> any BridgeAgent
    /// Sends an agent event on the call's events socket.
    public var emit: @Sendable (AgentEvent) -> Void
    /// `HOST:PORT` to put in the bridge's ICE candidates instead of the bound address.
    public var advertise: String?
    /// The bridge's logger (already redacting).
    public var logger: Logger
    /// The bridge's shared media port (`BridgeConfiguration.mediaPort`); nil: the call binds its own.
    public var sharedPort: SharedMediaPort?
    /// The operator's override of the agent's coding (`BridgeConfiguration.agentCoding`).
    public var agentCoding: AgentCoding

    public init(
        callID: String, mode: String, makeAgent: @escaping @Sendable () throws -> any BridgeAgent,
        emit: @escaping @Sendable (AgentEvent) -> Void, advertise: String?, logger: Logger,
        sharedPort: SharedMediaPort? = nil, agentCoding: AgentCoding = AgentCoding()
    ) {
        self.agentCoding = agentCoding
        self.callID = callID
        self.mode = mode
        self.makeAgent = makeAgent
        self.emit = emit
        self.advertise = advertise
        self.logger = logger
        self.sharedPort = sharedPort
    }
}

/// Creates the media session of a call.
public struct BridgeMediaFactory: Sendable {
    public var make: @Sendable (BridgeMediaContext) throws(BridgeMediaError) -> any BridgeMediaSession
    /// The shared media port every call of this factory goes through (set by `sharing(_:)`).
    public private(set) var sharedPort: SharedMediaPort?

    public init(make: @escaping @Sendable (BridgeMediaContext) throws(BridgeMediaError) -> any BridgeMediaSession) {
        self.make = make
    }

    /// This factory with every call's context pointing at `port` (the bridge's shared media port).
    public func sharing(_ port: SharedMediaPort) -> BridgeMediaFactory {
        let make = self.make
        var factory = BridgeMediaFactory { context throws(BridgeMediaError) in
            var shared = context
            shared.sharedPort = port
            return try make(shared)
        }
        factory.sharedPort = port
        return factory
    }

    /// No media engine: calls provision, but connect answers 503.
    public static let unavailable = BridgeMediaFactory { _ throws(BridgeMediaError) in
        throw .unavailable("this bridge was built without a media engine")
    }
}
