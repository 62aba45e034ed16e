// A sans-IO TLS client over memory BIOs: ciphertext in from the socket, plaintext out, and back.
import COpenSSL

/// One TLS client session. The shell feeds it what the socket read (`receive`) and writes what
/// `takeOutgoing` returns; plaintext passed to `send` before the handshake finished waits for it.
/// Verifies the certificate chain (the context's trust) and `hostName` (a DNS name, or an IP literal
/// against the IP SANs). Not thread-safe: use it from one thread (the event loop's).
public final class TLSClientSession {
    /// How errors name the server, e.g. `turn.example.org:5349`.
    public let serverName: String
    public private(set) var isEstablished = false
    /// The server sent close_notify after plaintext that `receive` returned with it: nothing more will come.
    public private(set) var receivedCloseNotify = false
    private let context: TLSClientContext
    private let ssl: OpaquePointer
    private let readBIO: OpaquePointer
    private let writeBIO: OpaquePointer
    private var waiting: [[UInt8]] = []
    private var scratch = [UInt8](repeating: 0, count: 16_384)

    public init(context: TLSClientContext, hostName: String, serverName: String) throws(TLSError) {
        self.context = context
        self.serverName = serverName
        guard let ssl = SSL_new(context.context), let readBIO = BIO_new(BIO_s_mem()),
            let writeBIO = BIO_new(BIO_s_mem())
        else { throw .setup("SSL_new or BIO_new: \(openSSLErrorText())") }
        _ = pv_bio_set_mem_eof_return(readBIO, -1)
        SSL_set_bio(ssl, readBIO, writeBIO)  // the SSL object owns both BIOs now
        self.ssl = ssl
        self.readBIO = readBIO
        self.writeBIO = writeBIO
        let named: Bool
        if IPAddress(hostName) != nil {
            named = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), hostName) == 1
        } else {
            named = SSL_set1_host(ssl, hostName) == 1 && pv_ssl_set_tlsext_host_name(ssl, hostName) == 1
        }
        guard named else {
            SSL_free(ssl)
            throw .setup("cannot verify the host name \(hostName): \(openSSLErrorText())")
        }
        SSL_set_connect_state(ssl)
    }

    deinit { SSL_free(ssl) }

    /// Starts the handshake (the ClientHello is then in `takeOutgoing`).
    public func start() throws(TLSError) { try handshake() }

    /// Ciphertext read from the socket; returns the plaintext it completed (often none).
    public func receive(_ ciphertext: UnsafeRawBufferPointer) throws(TLSError) -> [UInt8] {
        if ciphertext.count > 0 { _ = BIO_write(readBIO, ciphertext.baseAddress, Int32(ciphertext.count)) }
        if !isEstablished {
            try handshake()
            guard isEstablished else { return [] }
        }
        return try readPlaintext()
    }

    /// Encrypts `plaintext` (after the handshake; queued until then).
    public func send(_ plaintext: [UInt8]) throws(TLSError) {
        guard !plaintext.isEmpty else { return }
        guard isEstablished else { return waiting.append(plaintext) }
        ERR_clear_error()
        let written = plaintext.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
        // A memory BIO takes everything, so a write is whole or an error.
        guard written == Int32(plaintext.count) else { throw .failed(server: serverName, reason: openSSLErrorText()) }
    }

    /// Ciphertext to write to the socket (empty when there is none).
    public func takeOutgoing() -> [UInt8] {
        let pending = Int(pv_bio_ctrl_pending(writeBIO))
        guard pending > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: pending)
        let read = bytes.withUnsafeMutableBytes { BIO_read(writeBIO, $0.baseAddress, Int32(pending)) }
        return read > 0 ? Array(bytes.prefix(Int(read))) : []
    }

    private func handshake() throws(TLSError) {
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            isEstablished = true
            let queued = waiting
            waiting.removeAll()
            for plaintext in queued { try send(plaintext) }
            return
        }
        let error = SSL_get_error(ssl, result)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return }
        let verification = SSL_get_verify_result(ssl)
        if verification != X509_V_OK {
            throw .verificationFailed(
                server: serverName, reason: String(cString: X509_verify_cert_error_string(verification)))
        }
        throw .handshakeFailed(server: serverName, reason: openSSLErrorText())
    }

    private func readPlaintext() throws(TLSError) -> [UInt8] {
        var plaintext: [UInt8] = []
        while true {
            ERR_clear_error()
            let count = scratch.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                plaintext += scratch[0..<Int(count)]
                continue
            }
            switch SSL_get_error(ssl, count) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return plaintext
            case SSL_ERROR_ZERO_RETURN:
                // A response and the close_notify after it often arrive in one read: hand the response over.
                guard plaintext.isEmpty else {
                    receivedCloseNotify = true
                    return plaintext
                }
                throw .closed(server: serverName)
            default: throw .failed(server: serverName, reason: openSSLErrorText())
            }
        }
    }
}
