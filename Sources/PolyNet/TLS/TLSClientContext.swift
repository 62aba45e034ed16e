// The trust settings every TLS client connection of a process part shares: the system store plus an extra CA.
import COpenSSL
import Synchronization

/// An OpenSSL client context (TLS 1.2 or later) that verifies servers against the system trust store
/// (`SSL_CTX_set_default_verify_paths`) and, if given, the certificates of one more PEM file.
/// Loading the store reads files: make contexts off the event loop and share them.
public final class TLSClientContext: @unchecked Sendable {  // immutable after init; OpenSSL contexts are shareable
    let context: OpaquePointer

    public init(extraCAFile: String? = nil) throws(TLSError) {
        guard let method = TLS_client_method(), let context = SSL_CTX_new(method) else {
            throw .setup("SSL_CTX_new: \(openSSLErrorText())")
        }
        guard pv_ssl_ctx_set_min_proto_version(context, TLS1_2_VERSION) == 1,
            SSL_CTX_set_default_verify_paths(context) == 1
        else {
            let text = openSSLErrorText()
            SSL_CTX_free(context)
            throw .setup(text)
        }
        if let extraCAFile, SSL_CTX_load_verify_locations(context, extraCAFile, nil) != 1 {
            let text = openSSLErrorText()
            SSL_CTX_free(context)
            throw .setup("cannot load the CA file \(extraCAFile): \(text)")
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        self.context = context
    }

    deinit { SSL_CTX_free(context) }

    private static let cache = Mutex<[String: TLSClientContext]>([:])

    /// The process's context for this CA file (nil: the system store only), made once: parsing the system store
    /// costs tens of milliseconds, which every TLS relay of every call would otherwise pay at set-up.
    public static func shared(extraCAFile: String? = nil) throws(TLSError) -> TLSClientContext {
        let key = extraCAFile ?? ""
        if let cached = cache.withLock({ $0[key] }) { return cached }
        let made = try TLSClientContext(extraCAFile: extraCAFile)
        return cache.withLock { cache in
            if let raced = cache[key] { return raced }
            cache[key] = made
            return made
        }
    }
}
