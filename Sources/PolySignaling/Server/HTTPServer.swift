// A small HTTP/1.1 + WebSocket server on libwebsockets, for the reference bridge and tests.
import CWebSockets
import Foundation

/// An HTTP/1.1 server with WebSocket upgrades, serviced by its own thread.
///
/// Requests are parsed by libwebsockets; each complete request (body up to `maxBodyBytes`, else 413)
/// goes to the async `handler` on the Swift concurrency pool, and its response is written back by the
/// service thread. WebSocket callbacks run on the service thread (see `WebSocketHandlers`).
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

        public init(
            host: String = "127.0.0.1", port: Int = 0, maxBodyBytes: Int = 64 * 1024,
            maxWebSocketMessageBytes: Int = 64 * 1024, capturedHeaders: [String] = ["x-call-token"],
            tlsCertificateFile: String? = nil, tlsPrivateKeyFile: String? = nil
        ) {
            self.host = host
            self.port = port
            self.maxBodyBytes = maxBodyBytes
            self.maxWebSocketMessageBytes = maxWebSocketMessageBytes
            self.capturedHeaders = capturedHeaders
            self.tlsCertificateFile = tlsCertificateFile
            self.tlsPrivateKeyFile = tlsPrivateKeyFile
        }
    }

    private let core: ServerCore
    private let loop: LWSLoop
    /// The port the server listens on (the kernel's choice when configured with 0).
    public let port: Int

    /// Binds and starts serving. Throws `SignalingError.transport` if the address cannot be bound.
    public init(
        configuration: Configuration = Configuration(), webSocket: WebSocketHandlers? = nil,
        handler: @escaping Handler
    ) throws(SignalingError) {
        core = ServerCore(configuration: configuration, handler: handler, webSocket: webSocket)
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
        loop = try LWSLoop(protocolName: "http", target: core, tls: certificate != nil && key != nil) { info in
            info.port = Int32(configuration.port)
            info.iface = UnsafePointer(host)
            if isIPv4 { info.options |= pv_lws_option_disable_ipv6() }
            if let certificate, let key {
                info.ssl_cert_filepath = UnsafePointer(certificate)
                info.ssl_private_key_filepath = UnsafePointer(key)
            }
        }
        port = loop.listenPort
        core.loop = loop
        loop.start(name: "polyvoice-http-\(port)")
    }

    /// Stops serving: open connections are dropped, the service thread ends. Idempotent.
    public func stop() { loop.stop() }

    deinit { loop.stop() }
}
