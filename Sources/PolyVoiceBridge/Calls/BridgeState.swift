// The bridge's shared state: calls, liveness, rate limits and metrics, behind one lock.
import PolyCore
import PolySignaling

/// One provisioned call.
struct CallEntry: Sendable {
    let id: String
    let token: String
    let mode: String
    var media: (any BridgeMediaSession)?
    var events: WebSocketConnection?
    /// A pull offer was sent and its answer not yet received.
    var pullPending = false
    var mediaSeenConnected = false
    var lastPacketAt: Instant?
}

/// Everything the handlers share (always accessed under `BridgeCore.state`'s lock).
struct BridgeState: Sendable {
    var calls: [String: CallEntry] = [:]
    var reaper: CallReaper
    var limiter: RateLimiter
    var metrics = BridgeMetricsState()
    /// Authenticated events sockets → their call.
    var sockets: [UInt64: String] = [:]
    /// Open events sockets that have not sent their auth frame yet, with their opening time.
    var unauthenticated: [UInt64: (connection: WebSocketConnection, opened: Instant)] = [:]
    var running = true

    init(configuration: BridgeConfiguration) {
        reaper = CallReaper(timeouts: configuration.timeouts)
        limiter = RateLimiter(configuration: configuration.rateLimit)
    }
}
