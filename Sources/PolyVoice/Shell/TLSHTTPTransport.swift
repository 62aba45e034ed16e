// The bridge's REST requests over the project's own TCP + TLS stack, for bridges whose certificate needs an
// extra CA file: Foundation's URLSession on Linux (libcurl underneath) has no way to add one, and a call must
// never fall back to not verifying. One request per connection (`Connection: close`), so a changed local
// address never leaves a stale pooled connection behind (what RenewableHTTPTransport has to handle).
import Foundation
import PolyCore
import PolyNet
import PolySignaling

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `HTTPTransport` that verifies `https:` servers against the system trust store plus `trustedCAFile`, and
/// their host name (or IP address, against the certificate's IP SANs). `http:` URLs go over plain TCP.
/// Responses are bounded (64 KB head, 4 MB body) and each request has the request's timeout.
public struct TLSHTTPTransport: HTTPTransport {
    /// The PEM file trusted besides the system store (nil: the system store only).
    public let trustedCAFile: String?
    private let loop: EventLoop

    public init(trustedCAFile: String?) { self.init(trustedCAFile: trustedCAFile, loop: .shared) }

    init(trustedCAFile: String?, loop: EventLoop) {
        self.trustedCAFile = trustedCAFile
        self.loop = loop
    }

    public func perform(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        guard let url = request.url, let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let rawHost = url.host, !rawHost.isEmpty
        else { throw SignalingError.invalidURL("not an http or https URL") }
        let host = rawHost.hasPrefix("[") ? String(rawHost.dropFirst().dropLast()) : rawHost
        let secure = scheme == "https"
        guard let port = UInt16(exactly: url.port ?? (secure ? 443 : 80)), port > 0 else {
            throw SignalingError.invalidURL("bad port")
        }
        let bytes: [UInt8]
        do {
            bytes = try HTTPRequestEncoder.encode(request)
        } catch {
            throw SignalingError.transport("cannot send the request: \(error)")
        }
        let target = try await Self.prepare(host: host, port: port, secure: secure, caFile: trustedCAFile).get()
        let timeout = request.timeoutInterval > 0 ? request.timeoutInterval : 60
        let response = try await HTTPExchange.run(
            bytes, to: target, timeout: .milliseconds(Int64(timeout * 1000)), on: loop
        ).get()
        var fields: [String: String] = [:]
        for (name, value) in response.headers { fields[name] = fields[name].map { "\($0), \(value)" } ?? value }
        guard
            let http = HTTPURLResponse(
                url: url, statusCode: response.status, httpVersion: "HTTP/1.1", headerFields: fields)
        else { throw SignalingError.transport("bad HTTP response") }
        return (Data(response.body), http)
    }

    /// The server's addresses and, for TLS, the context trusting `caFile` too: on a thread of its own, since
    /// getaddrinfo and (once per process) loading the trust store both block.
    private static func prepare(host: String, port: UInt16, secure: Bool, caFile: String?) async
        -> Result<HTTPExchange.Target, SignalingError>
    {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: target(host: host, port: port, secure: secure, caFile: caFile))
            }
        }
    }

    private static func target(
        host: String, port: UInt16, secure: Bool, caFile: String?
    ) -> Result<HTTPExchange.Target, SignalingError> {
        let addresses: [TransportAddress]
        if let literal = IPAddress(host) {
            addresses = [TransportAddress(ip: literal, port: port)]
        } else {
            switch HostLookup.lookUp(host: host, port: port) {
            case .success(let found): addresses = found
            case .failure(let failure): return .failure(.transport("host not found (\(failure))"))
            }
        }
        guard secure else { return .success(HTTPExchange.Target(addresses: addresses, tls: nil)) }
        do throws(TLSError) {
            let context = try TLSClientContext.shared(extraCAFile: caFile)
            return .success(HTTPExchange.Target(addresses: addresses, tls: (context, host)))
        } catch {
            return .failure(.transport("TLS failure: \(error.reason)"))
        }
    }
}
