// OpenSSL's clean-up at process exit, turned off for processes whose I/O threads outlive `exit`.
//
// By default OpenSSL frees its global state (locks, error tables, providers) in an `atexit` handler. A command that
// exits while an event-loop thread is still closing a TLS or DTLS session (a call that failed during set-up, its
// TURN/TLS connection being torn down) then crashes in that thread on a lock the handler has just freed (seen as
// signal 11 in `pthread_rwlock_wrlock` under libcrypto). The handler is registered once, by the first
// initialisation of the library, so asking for none before anything else uses OpenSSL leaves its memory to the
// operating system at exit, as for every other library.
import COpenSSL

public enum OpenSSLExitCleanUp {
    /// Keeps OpenSSL from registering its `atexit` clean-up. Call it before any TLS, DTLS or hash is used; once
    /// OpenSSL is initialised this changes nothing (and OpenSSL still reports success, so there is nothing to
    /// return). `PolyCall` and `Bridge` call it when created and started, the CLI first thing in `main`.
    public static func disable() {
        _ = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
    }
}
