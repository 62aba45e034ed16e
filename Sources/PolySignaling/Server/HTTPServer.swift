// A small HTTP/1.1 + WebSocket server on libwebsockets, for the reference bridge and tests.
import CWebSockets
import Dispatch

/// An HTTP/1.1 server with WebSocket upgrades, serviced by its own thread.
///
/// Requests are parsed by libwebsockets; each complete request (body up to `maxBodyBytes`, else 413)
/// goes to the async `handler` on the Swift concurrency pool, and its response is written back by the
/// service thread. WebSocket callbacks run on the service thread (see `WebSocketHandlers`).
///
/// Abuse limits (docs/BRIDGE-LIMITS.md): the request head must arrive within `headerTimeout`, the body
/// within `bodyTimeout` (408); a body announced larger than `maxBodyBytes`, or unannounced (chunked), is
/// refused at once without reading it (413, 411); idle WebSockets are pinged and closed when they do not
/// answer, and one whose peer stops reading is dropped when its queue overflows.
public final class HTTPServer: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

    public struct Configuration: Sendable {
        /// The address to bind (an IPv4 literal binds IPv4 only).
        public var host: String
        /// 0 asks the kernel for a free port; read `port` after start.
        public var port: Int
        /// Larger request bodies are answered 413.
        public var maxBodyBytes: Int
        /// Larger WebSocket messages close the connection with 1009.
        public var maxWebSocketMessageBytes: Int
        /// Non-standard request headers to capture (standard ones are always captured).
        public var capturedHeaders: [String]
        /// PEM certificate and key files: serve HTTPS/WSS instead of HTTP/WS.
        public var tlsCertificateFile: String?
        public var tlsPrivateKeyFile: String?
        /// A connection must deliver its whole request head within this time of connecting (whole seconds,
        /// at least 1; libwebsockets' header timeout), else it is closed: slow-header (slowloris) clients.
        public var headerTimeout: Duration
        /// A request's body must arrive within this time of its head, else 408 and the connection closes.
        public var bodyTimeout: Duration
        /// A WebSocket idle this long is pinged; one that then answers nothing within `webSocketPongTimeout`
        /// (a peer that stopped reading) is closed. Whole seconds; zero turns the pings off.
        public var webSocketPingInterval: Duration
        public var webSocketPongTimeout: Duration
        /// A WebSocket with more unsent frames than this (its peer is not reading) is dropped.
        public var maxQueuedWebSocketFrames: Int
        /// Called (on the service thread; keep it short) for every request or connection the server refuses.
        public var onRejected: @Sendable (ServerRejection) -> Void

        public init(
            host: String = "127.0.0.1", port: Int = 0, maxBodyBytes: Int = 64 * 1024,
            maxWebSocketMessageBytes: Int = 64 * 1024, capturedHeaders: [String] = ["x-call-token"],
            tlsCertificateFile: String? = nil, tlsPrivateKeyFile: String? = nil,
            headerTimeout: Duration = .seconds(10), bodyTimeout: Duration = .seconds(10),
            webSocketPingInterval: Duration = .seconds(10), webSocketPongTimeout: Duration = .seconds(10),
            maxQueuedWebSocketFrames: Int = 256, onRejected: @escaping @Sendable (ServerRejection) -> Void = { _ in }
        ) {
            self.host = host
            self.port = port
            self.maxBodyBytes = maxBodyBytes
            self.maxWebSocketMessageBytes = maxWebSocketMessageBytes
            self.capturedHeaders = capturedHeaders
            self.tlsCertificateFile = tlsCertificateFile
            self.tlsPrivateKeyFile = tlsPrivateKeyFile
            self.headerTimeout = headerTimeout
            self.bodyTimeout = bodyTimeout
            self.webSocketPingInterval = webSocketPingInterval
            self.webSocketPongTimeout = webSocketPongTimeout
            self.maxQueuedWebSocketFrames = maxQueuedWebSocketFrames
            self.onRejected = onRejected
        }
    }

    private let core: ServerCore
    private let loop: LWSLoop
    private let sweeper: Sweeper
    /// The port the server listens on (the kernel's choice when configured with 0).
    public let port: Int

    /// Binds and starts serving. Throws `SignalingError.transport` if the address cannot be bound.
    public init(
        configuration: Configuration = Configuration(), webSocket: WebSocketHandlers? = nil,
        handler: @escaping Handler
    ) throws(SignalingError) {
        let core = ServerCore(configuration: configuration, handler: handler, webSocket: webSocket)
        self.core = core
        let host = strdup(configuration.host)
        let certificate = configuration.tlsCertificateFile.map { strdup($0) }
        let key = configuration.tlsPrivateKeyFile.map { strdup($0) }
        defer {
            free(host)
            certificate.map { free($0) }
            key.map { free($0) }
        }
        let isIPv4 =
            configuration.host.split(separator: ".").count == 4
            && configuration.host.allSatisfy {
                $0.isNumber || $0 == "."
            }
        let idlePolicy = IdlePolicy(
            ping: configuration.webSocketPingInterval, pongTimeout: configuration.webSocketPongTimeout)
        let headerSeconds = UInt32(clamping: max(1, Int(configuration.headerTimeout.inSeconds.rounded(.up))))
        loop = try LWSLoop(
            protocolName: "http", target: core, tls: certificate != nil && key != nil, retaining: idlePolicy
        ) { info in
            info.port = Int32(configuration.port)
            info.iface = UnsafePointer(host)
            info.timeout_secs_ah_idle = headerSeconds
            if let policy = idlePolicy.pointer { info.retry_and_idle_policy = UnsafePointer(policy) }
            if isIPv4 { info.options |= pv_lws_option_disable_ipv6() }
            if let certificate, let key {
                info.ssl_cert_filepath = UnsafePointer(certificate)
                info.ssl_private_key_filepath = UnsafePointer(key)
            }
        }
        port = loop.listenPort
        sweeper = Sweeper(every: max(.milliseconds(20), min(.milliseconds(250), configuration.bodyTimeout / 4))) {
            core.enqueue(.sweep)
        }
        core.loop = loop
        loop.start(name: "polyvoice-http-\(port)")
    }

    /// Stops serving: open connections are dropped, the service thread ends. Idempotent.
    public func stop() {
        sweeper.cancel()
        loop.stop()
    }

    deinit { stop() }
}

/// The lws idle policy of the server's WebSockets (ping when idle, hang up without an answer). lws keeps
/// the pointer for the context's lifetime: the loop retains this until the context is destroyed.
private final class IdlePolicy: @unchecked Sendable {
    // @unchecked: written once here, then only read by lws on the service thread.
    let pointer: UnsafeMutablePointer<lws_retry_bo_t>?

    init(ping: Duration, pongTimeout: Duration) {
        let pingSeconds = Int(ping.inSeconds.rounded(.up))
        guard pingSeconds > 0 else {
            pointer = nil
            return
        }
        let hangup = pingSeconds + max(1, Int(pongTimeout.inSeconds.rounded(.up)))
        let policy = UnsafeMutablePointer<lws_retry_bo_t>.allocate(capacity: 1)
        policy.initialize(to: lws_retry_bo_t())
        policy.pointee.secs_since_valid_ping = UInt16(clamping: pingSeconds)
        policy.pointee.secs_since_valid_hangup = UInt16(clamping: hangup)
        pointer = policy
    }

    deinit { pointer?.deallocate() }
}

/// A repeating timer that wakes the service thread to check deadlines (lws_service has no timeout here).
private struct Sweeper: @unchecked Sendable {
    // @unchecked: DispatchSourceTimer is thread-safe for cancel().
    private let timer: any DispatchSourceTimer

    init(every interval: Duration, _ tick: @escaping @Sendable () -> Void) {
        timer = DispatchSource.makeTimerSource(queue: .global())
        let nanoseconds = DispatchTimeInterval.nanoseconds(Int(interval.inSeconds * 1e9))
        timer.schedule(deadline: .now() + nanoseconds, repeating: nanoseconds)
        timer.setEventHandler(handler: tick)
        timer.resume()
    }

    func cancel() { timer.cancel() }
}
