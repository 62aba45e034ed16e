// Section 4 of PROTOCOL.md: the client side of the events WebSocket, on libwebsockets.
import CWebSockets
import Dispatch
import FoundationEssentials
import PolyCore

/// The events WebSocket of one call: authenticates with the per-call token as its first frame,
/// then delivers `repull`, `barge-in…` and `unmute` events; unknown frames are ignored.
///
/// Each socket has its own libwebsockets context and service thread (one call has one events socket,
/// so this costs one thread per active call). Sends and closes from any thread are handed to that
/// thread and woken with `lws_cancel_service`.
public final class EventsSocket: Sendable {
    public struct Configuration: Sendable, CustomStringConvertible {
        /// `ws://` or `wss://` URL (see `ProvisionedCall.eventsURL`).
        public var url: URL
        /// The per-call token (sent only inside the auth frame; redacted in descriptions).
        public var token: String
        /// Idle time after which a ping is sent (whole seconds, at least 1).
        public var pingInterval: Duration
        /// How long after a ping without any traffic the connection is given up (reported as 1006).
        public var pongTimeout: Duration
        /// A PEM CA file to trust besides the system store (lws loads both; e.g. a test's own CA).
        public var trustedCAFile: String?
        /// Accept a self-signed server certificate (tests only).
        public var allowSelfSigned: Bool
        /// Skip the certificate's host name check (tests only).
        public var skipHostnameCheck: Bool
        /// Larger incoming messages close the socket with 1009.
        public var maxMessageBytes: Int
        /// Bound on connecting and on the WebSocket handshake (then `closed` 1006).
        public var connectTimeout: Duration

        public init(
            url: URL, token: String, pingInterval: Duration = .seconds(10), pongTimeout: Duration = .seconds(10),
            trustedCAFile: String? = nil, allowSelfSigned: Bool = false, skipHostnameCheck: Bool = false,
            maxMessageBytes: Int = 64 * 1024, connectTimeout: Duration = .seconds(10)
        ) {
            self.url = url
            self.token = token
            self.pingInterval = pingInterval
            self.pongTimeout = pongTimeout
            self.trustedCAFile = trustedCAFile
            self.allowSelfSigned = allowSelfSigned
            self.skipHostnameCheck = skipHostnameCheck
            self.maxMessageBytes = maxMessageBytes
            self.connectTimeout = connectTimeout
        }

        public var description: String {
            "EventsSocket.Configuration(url: \(url.absoluteString), token: \(Redaction.token(token)))"
        }
    }

    /// What happens on the socket, in order: `open`, events, then exactly one `closed`.
    public enum Update: Sendable, Equatable {
        /// The handshake succeeded and the auth frame is queued as the first frame.
        case open
        case event(BridgeEvent)
        /// The socket ended: 1000 normal, 1008 policy (e.g. token rejected), 1006 dropped or unreachable.
        case closed(WebSocketClose)
    }

    /// The socket's updates; finishes after `.closed`.
    public let updates: AsyncStream<Update>
    private let core: EventsSocketCore

    /// Starts connecting and returns at once; the outcome arrives on `updates`. Only an unusable URL
    /// throws. The lws context is created on the socket's own thread: for wss that takes 100–200 ms
    /// (OpenSSL loads the CA store), which must not block the caller's (possibly cooperative) thread.
    public convenience init(configuration: Configuration) throws(SignalingError) {
        try self.init(
            configuration: configuration,
            firstFrame: String(decoding: MessageCoding.encode(AuthFrame(token: configuration.token)), as: UTF8.self))
    }

    /// Connects sending `firstFrame` first (tests use it to break the protocol on purpose).
    init(configuration: Configuration, firstFrame: String) throws(SignalingError) {
        let (stream, continuation) = AsyncStream.makeStream(of: Update.self)
        updates = stream
        let target = try EventsTarget(url: configuration.url)
        let core = EventsSocketCore(
            firstFrame: firstFrame, continuation: continuation, maxMessageBytes: configuration.maxMessageBytes)
        self.core = core
        DetachedThread.start(name: "polyvoice-events") {
            Self.run(core: core, target: target, configuration: configuration)
        }
        // Our own timer: lws's handshake timeout did not fire against a silent server here.
        // A Dispatch timer, not Task.sleep: the cooperative pool can be saturated by callers
        // that block, and a connect timeout must fire on time regardless.
        let timeout = configuration.connectTimeout
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout.inSeconds) {
            core.enqueue(.connectTimedOut)
        }
    }

    /// Creates the context, starts the connection, then becomes the service thread.
    private static func run(core: EventsSocketCore, target: EventsTarget, configuration: Configuration) {
        let loop: LWSLoop
        do {
            let caFile = configuration.trustedCAFile.map { strdup($0) }
            defer { caFile.map { free($0) } }
            loop = try LWSLoop(protocolName: "polyvoice-events", target: core, tls: target.secure) { info in
                info.port = pv_lws_context_port_no_listen()
                if let caFile { info.client_ssl_ca_filepath = UnsafePointer(caFile) }
            }
        } catch {
            core.failBeforeStart(error.description)
            return
        }
        let flags =
            (target.secure ? Int32(LCCSCF_USE_SSL.rawValue) : 0)
            | (configuration.allowSelfSigned ? Int32(LCCSCF_ALLOW_SELFSIGNED.rawValue) : 0)
            | (configuration.skipHostnameCheck ? Int32(LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK.rawValue) : 0)
        let ping = UInt16(clamping: max(1, Int(configuration.pingInterval.components.seconds)))
        let hangup = ping &+ UInt16(clamping: max(1, Int(configuration.pongTimeout.components.seconds)))
        let connected = core.connect(
            loop: loop, target: target, sslFlags: flags, pingSeconds: ping, hangupSeconds: hangup)
        // Attach only now: once attached, `abandon()` may destroy a loop that never ran.
        guard core.attach(loop) else {
            loop.stop()  // the socket was released meanwhile
            return
        }
        if !connected { core.enqueue(.failed("cannot start the connection")) }
        loop.wake()  // drain anything enqueued before the loop existed
        loop.runOnCurrentThread()
    }

    /// Sends the queued frames, then a close frame with `code` (1000 by default). The `closed` update
    /// follows when the bridge acknowledged or the connection ended.
    public func close(code: Int = WebSocketClose.normal, reason: String = "") {
        core.enqueue(.close(WebSocketClose(code: code, reason: reason)))
    }

    /// Keepalive pongs received so far.
    var pongsReceived: Int { core.pongs.load(ordering: .relaxed) }

    /// Dropping the socket without `close()` ends it at once (no close frame is guaranteed).
    deinit { core.abandon() }
}

/// The parts of a ws/wss URL that lws needs.
struct EventsTarget: Sendable {
    var secure: Bool
    var host: String
    var port: Int
    var path: String

    init(url: URL) throws(SignalingError) {
        let ws = try BridgeURLs.webSocketURL(for: url)
        guard let components = URLComponents(url: ws, resolvingAgainstBaseURL: true), let host = components.host,
            !host.isEmpty
        else { throw .invalidURL(url.absoluteString) }
        secure = components.scheme == "wss"
        self.host = host
        port = components.port ?? (secure ? 443 : 80)
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        self.path = components.percentEncodedQuery.map { path + "?" + $0 } ?? path
    }
}
