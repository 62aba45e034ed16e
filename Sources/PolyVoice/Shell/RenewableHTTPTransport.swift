// The bridge's REST requests, over a URLSession that is replaced when the machine's address changes: a pooled
// keep-alive connection from an address that is gone would swallow the next request (the ICE restart) until
// its 15 s timeout, because nothing tells TCP that its source address vanished.
import Foundation
import PolySignaling
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `HTTPTransport` whose connection pool is dropped by `renew()`; one per process (`shared`), since an address
/// change concerns every call.
final class RenewableHTTPTransport: HTTPTransport {
    static let shared = RenewableHTTPTransport()

    /// Made by the first request: a process whose calls never use it (an `http:` bridge) never initialises
    /// URLSession and libcurl, which cost several MB (docs/MEMORY.md).
    private let session = Mutex<URLSession?>(nil)

    func perform(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let current = session.withLock { session in
            if session == nil { session = URLSession(configuration: .ephemeral) }
            return session!
        }
        return try await URLSessionTransport(session: current).perform(request)
    }

    /// New requests use new connections; requests under way on the old ones finish (or time out) there.
    func renew() {
        let old = session.withLock { current in
            let old = current
            current = nil
            return old
        }
        old?.finishTasksAndInvalidate()
    }
}
