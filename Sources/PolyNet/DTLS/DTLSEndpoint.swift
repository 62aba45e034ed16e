// DTLS 1.2 with use_srtp over memory buffers: a sans-IO state machine around an OpenSSL SSL object.
import COpenSSL
import PolyCore

/// One side of a DTLS-SRTP handshake (RFC 5763/5764). No sockets, threads or clocks: feed datagrams
/// and timeouts with the caller's time, drain `pollOutput` after each call, and arm a timer for `nextDeadline()`.
///
/// A class (not a struct) because it owns an OpenSSL object with identity. Not Sendable: use it from one
/// thread (the event loop's).
///
/// Clocks: retransmission decisions follow the caller's clock. OpenSSL still keeps its own DTLS timer on
/// the wall clock (gettimeofday) and refuses to retransmit before it expires; we give it the durations of
/// our schedule plus the 15 ms by which OpenSSL treats a timer as expired early, so its gate opens at our
/// deadline. If it is not open then (a virtual-time test that let less real time pass, or a wall-clock step
/// backwards), the endpoint asks again 1 ms later on the caller's clock. OpenSSL also re-sends by itself
/// when it reads with its gate open; those re-sends are dropped (`DTLSFlightTracker`), so during the
/// handshake only our deadlines retransmit. A flight unanswered for `Configuration.handshakeTimeout` (36 s
/// by default) fails with `.timedOut`. OpenSSL further reads the clock for certificate validity (not
/// enforced: peers are authenticated by fingerprint) and session timestamps.
public final class DTLSEndpoint {
    /// `a=setup:active` makes us the DTLS client, `passive` the server (`actpass` is resolved by the answer).
    public enum Role: Sendable, Equatable { case client, server }

    public enum Input: Sendable {
        /// A datagram the demultiplexer classified as DTLS (first byte 20–63).
        case datagram([UInt8])
        /// `nextDeadline()` has passed.
        case timeout
    }

    public enum Event: Sendable, Equatable {
        /// The handshake completed, the peer matched its fingerprint, and SRTP keys were exported.
        case connected(DTLSSRTPKeys)
        /// The peer sent close_notify.
        case closed
        /// The session is dead; nothing was (or will be) keyed.
        case failed(DTLSError)
    }

    public enum Output: Sendable, Equatable {
        /// A datagram to send to the peer.
        case transmit([UInt8])
        case event(Event)
    }

    public struct Configuration: Sendable {
        public var role: Role
        public var certificate: DTLSCertificate
        /// Every `a=fingerprint` the peer's SDP listed; its certificate must match one of them.
        public var remoteFingerprints: [DTLSFingerprint]
        /// Offered (client) or accepted (server) SRTP profiles, most preferred first.
        public var srtpProfiles: [DTLSSRTPProfile]
        /// Largest datagram we send (DTLS fragments handshake messages to fit).
        public var mtu: Int
        /// Retransmission timeout for a fresh flight; doubles on each retransmission up to `maximumRetransmitTimeout`.
        public var initialRetransmitTimeout: Duration
        public var maximumRetransmitTimeout: Duration
        /// Retransmissions of one flight before the handshake fails with `.timedOut` (OpenSSL's own limit is 12).
        public var maximumRetransmissions: Int

        /// How long one flight may go unanswered before the handshake fails with `.timedOut`: the initial
        /// timeout plus every doubled (capped) one, 36 s with the defaults (0.4 + 0.8 + 1.6 + 3.2 + 5 × 6).
        public var handshakeTimeout: Duration {
            var total = initialRetransmitTimeout
            var timeout = initialRetransmitTimeout
            for _ in 0..<max(maximumRetransmissions, 0) {
                timeout = min(timeout * 2, maximumRetransmitTimeout)
                total += timeout
            }
            return total
        }

        public init(
            role: Role, certificate: DTLSCertificate, remoteFingerprints: [DTLSFingerprint],
            srtpProfiles: [DTLSSRTPProfile] = [.aeadAes128Gcm, .aes128CmSha1_80], mtu: Int = 1200,
            initialRetransmitTimeout: Duration = .milliseconds(400), maximumRetransmitTimeout: Duration = .seconds(6),
            maximumRetransmissions: Int = 8
        ) {
            self.role = role
            self.certificate = certificate
            self.remoteFingerprints = remoteFingerprints
            self.srtpProfiles = srtpProfiles
            self.mtu = mtu
            self.initialRetransmitTimeout = initialRetransmitTimeout
            self.maximumRetransmitTimeout = maximumRetransmitTimeout
            self.maximumRetransmissions = maximumRetransmissions
        }
    }

    public enum State: Sendable, Equatable { case handshaking, connected, closed, failed }

    public let configuration: Configuration
    public private(set) var state: State = .handshaking

    private let context: OpaquePointer
    private let ssl: OpaquePointer
    private let readBIO: OpaquePointer
    private var outputs = OutputQueue<Output>()
    /// Records written by OpenSSL during the current call, packed into datagrams up to the MTU.
    private var pendingDatagram: [UInt8] = []
    private var wroteDuringCall = false
    private var retransmittingDeliberately = false
    private var flights = DTLSFlightTracker()
    private var deadline: Instant?
    private var retransmitTimeout: Duration
    private var retransmissions = 0
    /// The caller's time during the current call (for OpenSSL's timer callback).
    private var now = Instant.zero
    private var fingerprintMismatched = false
    private var readScratch = [UInt8](repeating: 0, count: 2048)

    public init(_ configuration: Configuration) throws(DTLSError) {
        self.configuration = configuration
        retransmitTimeout = configuration.initialRetransmitTimeout
        guard let method = DTLS_method(), let context = SSL_CTX_new(method) else {
            throw .setup("SSL_CTX_new failed: \(openSSLErrorText())")
        }
        do throws(DTLSError) {
            try Self.configure(context, configuration)
        } catch {
            SSL_CTX_free(context)
            throw error
        }
        guard let ssl = SSL_new(context), let readBIO = BIO_new(BIO_s_mem()),
            let writeBIO = BIO_new(dtlsOutputBIOMethod)
        else {
            SSL_CTX_free(context)
            throw .setup("SSL_new or BIO_new failed")
        }
        self.context = context
        self.ssl = ssl
        self.readBIO = readBIO
        _ = pv_bio_set_mem_eof_return(readBIO, -1)
        SSL_set_bio(ssl, readBIO, writeBIO)  // the SSL object now owns both BIOs
        let me = Unmanaged.passUnretained(self).toOpaque()
        BIO_set_data(writeBIO, me)
        SSL_set_ex_data(ssl, 0, me)
        _ = pv_ssl_set_options_no_query_mtu(ssl)
        _ = pv_ssl_set_mtu(ssl, configuration.mtu)  // UDP payload size, IP/UDP headers excluded
        DTLS_set_timer_cb(ssl) { ssl, previous in dtlsTimerCallback(ssl, previous) }
        if configuration.role == .client { SSL_set_connect_state(ssl) } else { SSL_set_accept_state(ssl) }
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    private static func configure(_ context: OpaquePointer, _ configuration: Configuration) throws(DTLSError) {
        guard pv_ssl_ctx_set_min_proto_version(context, DTLS1_2_VERSION) == 1,
            pv_ssl_ctx_set_max_proto_version(context, DTLS1_2_VERSION) == 1
        else { throw .setup("cannot restrict to DTLS 1.2") }
        _ = pv_ssl_ctx_set_release_buffers(context)
        guard SSL_CTX_use_certificate(context, configuration.certificate.certificate) == 1,
            SSL_CTX_use_PrivateKey(context, configuration.certificate.privateKey) == 1,
            SSL_CTX_check_private_key(context) == 1
        else { throw .setup("certificate or key refused: \(openSSLErrorText())") }
        let profiles = configuration.srtpProfiles.map(\.openSSLName).joined(separator: ":")
        guard !profiles.isEmpty, SSL_CTX_set_tlsext_use_srtp(context, profiles) == 0 else {  // 0 = success here
            throw .setup("use_srtp profiles refused")
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT) { preverify, store in
            dtlsVerifyCallback(preverify, store)
        }
    }

    // MARK: Sans-IO interface

    /// Sends the first flight (ClientHello) for a client; a server just waits for one.
    public func start(at now: Instant) {
        guard state == .handshaking else { return }
        self.now = now
        step(at: now)
    }

    /// Feeds a datagram or a timeout. Throws `.malformedDatagram` (and drops it, the session carries on)
    /// for bytes that are not DTLS records; fatal problems arrive as `.event(.failed)` instead.
    public func handle(_ input: Input, at now: Instant) throws(DTLSError) {
        self.now = now
        switch input {
        case .datagram(let bytes):
            guard state == .handshaking || state == .connected else { return }
            try DTLSRecordFraming.validate(bytes)
            _ = bytes.withUnsafeBytes { BIO_write(readBIO, $0.baseAddress, Int32($0.count)) }
            step(at: now)
        case .timeout:
            handleTimeout(at: now)
        }
    }

    /// The next datagram to send or event to report; nil when there is nothing more.
    public func pollOutput(at now: Instant) -> Output? {
        outputs.next()
    }

    /// When to call `handle(.timeout, at:)` next (a retransmission is due), or nil.
    public func nextDeadline() -> Instant? { deadline }

    /// Sends close_notify (on hang-up) and ends the session.
    public func close(at now: Instant) {
        guard state == .handshaking || state == .connected else { return }
        self.now = now
        callOpenSSL { _ = SSL_shutdown(ssl) }
        state = .closed
        deadline = nil
    }

    // MARK: Driving OpenSSL

    /// Runs `body` (an OpenSSL call) and queues whatever it wrote as datagrams.
    private func callOpenSSL(_ body: () -> Void) {
        ERR_clear_error()
        wroteDuringCall = false
        flights.beginCall()
        body()
        flushPendingDatagram()
    }

    private func step(at now: Instant) {
        switch state {
        case .handshaking:
            var result: Int32 = 0
            callOpenSSL { result = SSL_do_handshake(ssl) }
            if result == 1 {
                finishHandshake()
                if state == .connected { readApplicationRecords() }
                return
            }
            let error = SSL_get_error(ssl, result)
            guard error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE else {
                fail(fingerprintMismatched ? .fingerprintMismatch : .handshakeFailed(openSSLErrorText()))
                return
            }
            updateDeadline(at: now)
        case .connected:
            readApplicationRecords()
        case .closed, .failed:
            break
        }
    }

    /// After the handshake: retransmitted flights, alerts (close_notify), application data (discarded).
    private func readApplicationRecords() {
        while state == .connected {
            var result: Int32 = 0
            callOpenSSL {
                result = readScratch.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            }
            if result > 0 { continue }
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                return
            case SSL_ERROR_ZERO_RETURN:
                state = .closed
                outputs.append(.event(.closed))
            default:
                fail(.handshakeFailed(openSSLErrorText()))
            }
        }
    }

    private func handleTimeout(at now: Instant) {
        guard state == .handshaking, let due = deadline, now >= due else { return }
        guard retransmissions < configuration.maximumRetransmissions else {
            fail(.timedOut)
            return
        }
        var result = 0
        retransmittingDeliberately = true
        callOpenSSL { result = pv_dtls_handle_timeout(ssl) }
        retransmittingDeliberately = false
        if result > 0 {
            retransmissions += 1
            retransmitTimeout = min(retransmitTimeout * 2, configuration.maximumRetransmitTimeout)
            deadline = now + retransmitTimeout
        } else if result == 0 {
            // OpenSSL's wall-clock timer has not expired yet: ask again shortly —
            // unless it has no timer running at all, in which case there is nothing to retransmit.
            var remaining = timeval()
            deadline = pv_dtls_get_timeout(ssl, &remaining) == 1 ? now + .milliseconds(1) : nil
        } else {
            fail(.handshakeFailed(openSSLErrorText()))
        }
    }

    /// A fresh flight restarts the retransmission schedule; no OpenSSL timer means nothing to retransmit.
    private func updateDeadline(at now: Instant) {
        var remaining = timeval()
        guard pv_dtls_get_timeout(ssl, &remaining) == 1 else {
            deadline = nil
            return
        }
        if wroteDuringCall || deadline == nil {
            retransmitTimeout = configuration.initialRetransmitTimeout
            retransmissions = 0
            deadline = now + retransmitTimeout
        }
    }

    private func finishHandshake() {
        guard let peer = SSL_get1_peer_certificate(ssl) else {
            fail(.handshakeFailed("peer sent no certificate"))
            return
        }
        let matches = peerCertificateMatches(peer)
        X509_free(peer)
        guard matches else {
            fail(.fingerprintMismatch)
            return
        }
        guard let selected = SSL_get_selected_srtp_profile(ssl),
            let profile = DTLSSRTPProfile(rawValue: UInt16(truncatingIfNeeded: selected.pointee.id))
        else {
            fail(.noSRTPProfile)
            return
        }
        let label = "EXTRACTOR-dtls_srtp"
        var material = [UInt8](repeating: 0, count: 2 * (profile.keyLength + profile.saltLength))
        let exported = SSL_export_keying_material(ssl, &material, material.count, label, label.utf8.count, nil, 0, 0)
        guard exported == 1 else {
            fail(.handshakeFailed("keying material export failed"))
            return
        }
        state = .connected
        deadline = nil
        let keys = DTLSSRTPKeys(
            profileID: profile.rawValue, keyingMaterial: material, isClient: configuration.role == .client)
        outputs.append(.event(.connected(keys)))
    }

    private func fail(_ error: DTLSError) {
        if SSL_is_init_finished(ssl) == 1 {
            callOpenSSL { _ = SSL_shutdown(ssl) }  // the peer believes it is connected: tell it we are not
        }
        state = .failed
        deadline = nil
        outputs.append(.event(.failed(error)))
    }

    // MARK: Callbacks from OpenSSLGlue (same thread, inside an OpenSSL call)

    func openSSLWrote(_ bytes: UnsafeRawBufferPointer) {
        for (record, isResend) in flights.classify(Array(bytes)) {
            // While handshaking only our deadlines retransmit; once connected, OpenSSL re-sends its final
            // flight in answer to the peer's retransmission (the peer missed it), which must go out.
            if isResend && state == .handshaking && !retransmittingDeliberately { continue }
            wroteDuringCall = true
            if !pendingDatagram.isEmpty, pendingDatagram.count + record.count > configuration.mtu {
                flushPendingDatagram()
            }
            pendingDatagram.append(contentsOf: record)
        }
    }

    /// The duration OpenSSL's wall-clock timer should run: a fresh flight gets the initial timeout, our own
    /// retransmission the next (doubled) one, and OpenSSL's unsolicited re-send whatever is left until our deadline.
    ///
    /// OpenSSL counts a timer as expired once less than 15 ms remain, so each duration is lengthened by those
    /// 15 ms: its gate opens at our deadline, not before. Without that, a datagram read in the last 15 ms before
    /// our deadline made OpenSSL re-send unasked and re-arm a timer that was already expired; it then looped
    /// through 12 such re-sends within one read and failed the handshake with "read timeout expired".
    func openSSLTimerDuration(previous: UInt32) -> UInt32 {
        let duration: Duration
        if previous == 0 {
            duration = configuration.initialRetransmitTimeout
        } else if retransmittingDeliberately {
            duration = min(retransmitTimeout * 2, configuration.maximumRetransmitTimeout)
        } else if let deadline {
            duration = max(deadline - now, .milliseconds(1))  // never an already expired timer
        } else {
            duration = configuration.initialRetransmitTimeout
        }
        return UInt32(clamping: (duration + Self.openSSLEarlyExpiry).totalNanoseconds / 1_000)
    }

    /// How early OpenSSL treats its DTLS timer as expired (d1_lib.c, dtls1_get_timeout).
    static let openSSLEarlyExpiry = Duration.milliseconds(15)

    func peerCertificateMatches(_ certificate: OpaquePointer) -> Bool {
        let matched = configuration.remoteFingerprints.contains { expected in
            DTLSCertificate.digest(of: certificate, expected.algorithm) == expected
        }
        if !matched { fingerprintMismatched = true }
        return matched
    }

    private func flushPendingDatagram() {
        guard !pendingDatagram.isEmpty else { return }
        outputs.append(.transmit(pendingDatagram))
        pendingDatagram.removeAll(keepingCapacity: true)
    }
}
