// The bridge's REST requests over the project's own TCP + TLS stack, for every bridge: URLSession would link
// FoundationNetworking and libcurl (about 10 MB of every process, docs/MEMORY.md) and cannot add a CA file on
// Linux. One request per connection (`Connection: close`), so after a local address change no request waits
// on a pooled connection from an address that is gone.
import FoundationEssentials
import PolyCore
import PolyNet
import PolySignaling

/// `HTTPTransport` that verifies `https:` servers against the system trust store plus `trustedCAFile`, and
/// their host name (or IP address, against the certificate's IP SANs). `http:` URLs go over plain TCP.
/// Responses are bounded (64 KB head, 4 MB body) and each request has the request's timeout. `https:` requests
/// tunnel through the `https_proxy` the environment names (`HTTPProxy`), as URLSession's did.
public struct TLSHTTPTransport: HTTPTransport {
    /// The PEM file trusted besides the system store (nil: the system store only).
    public let trustedCAFile: String?
    private let loop: EventLoop
    /// Where the proxy settings come from (the process's environment, but for tests).
    private let environment: [String: String]

    public init(trustedCAFile: String?) {
        self.init(trustedCAFile: trustedCAFile, loop: .shared, environment: ProcessInfo.processInfo.environment)
    }

    init(trustedCAFile: String?, loop: EventLoop, environment: [String: String]) {
        self.trustedCAFile = trustedCAFile
        self.loop = loop
        self.environment = environment
    }

    public func perform(_ request: HTTPClientRequest) async throws(SignalingError) -> HTTPClientResponse {
        let url = request.url
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http", let rawHost = url.host,
            !rawHost.isEmpty
        else { throw .invalidURL("not an http or https URL") }
        let host = rawHost.hasPrefix("[") ? String(rawHost.dropFirst().dropLast()) : rawHost
        let secure = scheme == "https"
        guard let port = UInt16(exactly: url.port ?? (secure ? 443 : 80)), port > 0 else {
            throw .invalidURL("bad port")
        }
        let bytes: [UInt8]
        do {
            bytes = try HTTPRequestEncoder.encode(request)
        } catch {
            throw .transport("cannot send the request: \(error)")
        }
        let proxy = secure ? try HTTPProxy.forHTTPS(host: host, environment: environment) : nil
        let target = try await Self.prepare(
            host: host, port: port, secure: secure, caFile: trustedCAFile, proxy: proxy
        ).get()
        let timeout = request.timeout > .zero ? request.timeout : .seconds(60)
        return try await HTTPExchange.run(bytes, to: target, timeout: timeout, on: loop).get()
    }

    /// The server's addresses and, for TLS, the context trusting `caFile` too: on a thread of its own, since
    /// getaddrinfo and (once per process) loading the trust store both block.
    private static func prepare(host: String, port: UInt16, secure: Bool, caFile: String?, proxy: HTTPProxy?) async
        -> Result<HTTPExchange.Target, SignalingError>
    {
        await withCheckedContinuation { continuation in
            DetachedThread.start {
                continuation.resume(
                    returning: target(host: host, port: port, secure: secure, caFile: caFile, proxy: proxy))
            }
        }
    }

    /// Through a proxy only the proxy's name is looked up here: the proxy resolves the server's.
    private static func target(
        host: String, port: UInt16, secure: Bool, caFile: String?, proxy: HTTPProxy?
    ) -> Result<HTTPExchange.Target, SignalingError> {
        let addresses: [TransportAddress]
        switch resolve(host: proxy?.host ?? host, port: proxy?.port ?? port) {
        case .success(let found): addresses = found
        case .failure(let failure):
            return .failure(.transport("\(proxy == nil ? "" : "proxy ")host not found (\(failure))"))
        }
        guard secure else { return .success(HTTPExchange.Target(addresses: addresses, tls: nil, tunnel: nil)) }
        do throws(TLSError) {
            let context = try TLSClientContext.shared(extraCAFile: caFile)
            return .success(
                HTTPExchange.Target(
                    addresses: addresses, tls: (context, host),
                    tunnel: proxy?.connectRequest(toHost: host, port: port)))
        } catch {
            return .failure(.transport("TLS failure: \(error.reason)"))
        }
    }

    private static func resolve(host: String, port: UInt16) -> Result<[TransportAddress], HostLookup.LookupFailure> {
        if let literal = IPAddress(host) { return .success([TransportAddress(ip: literal, port: port)]) }
        return HostLookup.lookUp(host: host, port: port)
    }
}
