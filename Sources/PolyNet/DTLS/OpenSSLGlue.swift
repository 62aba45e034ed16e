// C callbacks OpenSSL calls back into a DTLSEndpoint: the output BIO, the retransmission timer, peer verification.
import COpenSSL

/// A write-only BIO that hands each DTLS record to its endpoint, keeping datagram boundaries
/// (a memory BIO would merge records into one byte stream). Created once; OpenSSL shares BIO methods.
nonisolated(unsafe) let dtlsOutputBIOMethod: OpaquePointer? = {
    guard let method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "polyvoice-dtls-output") else {
        return nil
    }
    _ = BIO_meth_set_create(method) { bio in
        BIO_set_init(bio, 1)
        return 1
    }
    _ = BIO_meth_set_write(method) { bio, data, length in
        guard let bio, let data, length > 0, let context = BIO_get_data(bio) else { return length }
        let endpoint = Unmanaged<DTLSEndpoint>.fromOpaque(context).takeUnretainedValue()
        endpoint.openSSLWrote(UnsafeRawBufferPointer(start: data, count: Int(length)))
        return length
    }
    _ = BIO_meth_set_ctrl(method) { _, command, _, _ in
        command == BIO_CTRL_FLUSH ? 1 : 0
    }
    return method
}()

/// The endpoint registered on an SSL object (ex_data slot 0, OpenSSL's "app data").
func dtlsEndpoint(of ssl: OpaquePointer?) -> DTLSEndpoint? {
    guard let ssl, let context = SSL_get_ex_data(ssl, 0) else { return nil }
    return Unmanaged<DTLSEndpoint>.fromOpaque(context).takeUnretainedValue()
}

/// OpenSSL's own DTLS timer runs on its wall clock (gettimeofday) and cannot be driven from outside.
/// We make it a mere gate: every flight's timer lasts 16 ms, which OpenSSL treats as expired 1 ms
/// after the flight (it rounds anything under 15 ms left down to zero). The endpoint decides when to
/// retransmit from the caller's clock and drops the re-sends OpenSSL makes by itself (it re-sends
/// whenever it is about to read with the gate open; see `DTLSFlightTracker`).
func dtlsTimerCallback(_ ssl: OpaquePointer?, _ previousMicroseconds: UInt32) -> UInt32 {
    16_000
}

/// Peer certificate check: the leaf certificate must match a fingerprint from the peer's SDP.
/// Self-signed chains are expected, so OpenSSL's own verdict (`preverify`) is ignored.
func dtlsVerifyCallback(_ preverify: Int32, _ store: OpaquePointer?) -> Int32 {
    guard let store, X509_STORE_CTX_get_error_depth(store) == 0 else { return 1 }
    guard let raw = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()),
        let endpoint = dtlsEndpoint(of: OpaquePointer(raw)),
        let certificate = X509_STORE_CTX_get_current_cert(store)
    else { return 0 }
    return endpoint.peerCertificateMatches(certificate) ? 1 : 0
}

/// Drains OpenSSL's (thread-local) error queue into one line.
func openSSLErrorText() -> String {
    var lines: [String] = []
    while case let code = ERR_get_error(), code != 0 {
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        lines.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return lines.isEmpty ? "unknown OpenSSL error" : lines.joined(separator: "; ")
}
