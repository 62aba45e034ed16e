// SRTP/SRTCP protection of one media session over libsrtp2, in place in the caller's buffers.
import CNSS
import CSRTP

/// libsrtp is initialised once per process; a Swift global is initialised exactly once, thread-safely.
///
/// NSS first: Debian's libsrtp2 does its crypto through NSS and would initialise it for small hash tables,
/// and with hundreds of sessions (a bridge's calls) every packet then walks long chains of the softoken's
/// sessions and keys: 7–9 % of the bridge's and the load generator's CPU at 150 echo calls. Our context is
/// never shut down, so NSS also stays loaded between calls instead of unloading with the last session.
private let srtpLibraryStatus: Int32 = {
    // Without it libsrtp2 initialises NSS its own way: only slower.
    _ = pv_nss_init_for_many_sessions()
    return Int32(srtp_init().rawValue)
}()

/// Outbound and inbound SRTP contexts built from DTLS-SRTP keying material.
///
/// `protect…` encrypts and authenticates in place and appends the trailer; `unprotect…` verifies,
/// decrypts in place and returns the shorter length (after a failure the buffer content is undefined:
/// GCM may already have overwritten it). No allocation per packet (libsrtp allocates
/// once per new remote SSRC). Failures throw and are counted in `stats`; a refused packet's bytes
/// must be dropped. Not thread-safe: use one session from one thread at a time.
public final class SRTPSession {
    public let profile: SRTPProfile
    /// Counters of this session. Exempt from dynamic exclusivity checks, which cost more per packet
    /// than the counting: the session is used from one thread and no access to it can overlap.
    @exclusivity(unchecked) public private(set) var stats = SRTPStats()
    private var outbound: srtp_t?
    private var inbound: srtp_t?

    /// Initialises NSS and libsrtp2 for the process now, if not yet done: that takes tens of milliseconds
    /// once, and every thread that needs it meanwhile waits, so a shell calls this before its event loop
    /// needs a session (else the first call's keys stall every loop of the process). True when ready.
    @discardableResult
    public static func prepareLibrary() -> Bool { srtpLibraryStatus == 0 }

    /// Creates both contexts. Replay protection uses a 128-packet window (RFC 3711 minimum 64).
    public init(keyingMaterial keys: SRTPKeyingMaterial) throws(SRTPError) {
        guard srtpLibraryStatus == 0 else { throw .setupFailed(code: srtpLibraryStatus) }
        profile = keys.profile
        outbound = try Self.makeContext(
            profile: keys.profile, key: keys.localMasterKey + keys.localMasterSalt, direction: ssrc_any_outbound)
        inbound = try Self.makeContext(
            profile: keys.profile, key: keys.remoteMasterKey + keys.remoteMasterSalt, direction: ssrc_any_inbound)
    }

    deinit {
        if let outbound { srtp_dealloc(outbound) }
        if let inbound { srtp_dealloc(inbound) }
    }

    private static func makeContext(
        profile: SRTPProfile, key: [UInt8], direction: srtp_ssrc_type_t
    ) throws(SRTPError) -> srtp_t {
        var policy = srtp_policy_t()
        switch profile {
        case .aes128CmSha1_80:
            pv_srtp_policy_aes_cm_128_hmac_sha1_80(&policy.rtp)
            pv_srtp_policy_aes_cm_128_hmac_sha1_80(&policy.rtcp)
        case .aeadAes128Gcm:
            pv_srtp_policy_aes_gcm_128_16_auth(&policy.rtp)
            pv_srtp_policy_aes_gcm_128_16_auth(&policy.rtcp)
        }
        policy.ssrc.type = direction
        policy.window_size = 128
        policy.allow_repeat_tx = 0
        var context: srtp_t?
        var keyBytes = key
        let status = keyBytes.withUnsafeMutableBufferPointer { key in
            policy.key = key.baseAddress
            return srtp_create(&context, &policy)  // libsrtp derives session keys; the master key is not kept
        }
        for i in keyBytes.indices { keyBytes[i] = 0 }
        guard status == srtp_err_status_ok, let context else { throw .setupFailed(code: Int32(status.rawValue)) }
        return context
    }

    // MARK: - In place, caller's buffer

    /// Protects the RTP packet in `buffer[0..<length]`; returns the new length. `buffer` must have
    /// room for `profile.rtpOverhead` more bytes and start 4-byte aligned.
    public func protectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        let result = try run(srtp_protect, outbound, buffer, length, room: profile.rtpOverhead)
        stats.rtpProtected += 1
        return result
    }

    /// Verifies and decrypts the SRTP packet in `buffer[0..<length]`; returns the RTP length.
    public func unprotectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        let result = try run(srtp_unprotect, inbound, buffer, length, room: 0)
        stats.rtpUnprotected += 1
        return result
    }

    /// Protects the RTCP compound packet in `buffer[0..<length]`; needs `profile.rtcpOverhead` spare bytes.
    public func protectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        let result = try run(srtp_protect_rtcp, outbound, buffer, length, room: profile.rtcpOverhead)
        stats.rtcpProtected += 1
        return result
    }

    /// Verifies and decrypts the SRTCP packet in `buffer[0..<length]`; returns the RTCP length.
    public func unprotectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        let result = try run(srtp_unprotect_rtcp, inbound, buffer, length, room: 0)
        stats.rtcpUnprotected += 1
        return result
    }

    private typealias Operation = (srtp_t?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int32>?) -> srtp_err_status_t

    private func run(
        _ operation: Operation, _ context: srtp_t?, _ buffer: UnsafeMutableRawBufferPointer, _ length: Int, room: Int
    ) throws(SRTPError) -> Int {
        guard length >= 0, length <= Int(Int32.max) - room, buffer.count >= length + room else {
            stats.otherFailures += 1
            throw .bufferTooSmall(needed: length + room, available: buffer.count)
        }
        guard let base = buffer.baseAddress, UInt(bitPattern: base) % 4 == 0 else {
            stats.otherFailures += 1
            throw .misalignedBuffer
        }
        var length32 = Int32(length)
        let status = operation(context, base, &length32)
        switch status {
        case srtp_err_status_ok:
            return Int(length32)
        case srtp_err_status_auth_fail:
            stats.authenticationFailures += 1
            throw .authenticationFailed
        case srtp_err_status_replay_fail, srtp_err_status_replay_old:
            stats.replayFailures += 1
            throw .replayed
        default:
            stats.otherFailures += 1
            throw .other(code: Int32(status.rawValue))
        }
    }

    // MARK: - Arrays (convenience; no allocation when the array has spare capacity)

    /// Protects an RTP packet held in an array, growing it by the trailer.
    public func protectRTP(_ packet: inout [UInt8]) throws(SRTPError) {
        try inArray(&packet, room: profile.rtpOverhead) { (buffer, length) throws(SRTPError) in
            try protectRTP(buffer, length: length)
        }
    }

    /// Unprotects an SRTP packet held in an array, shrinking it to the RTP packet.
    public func unprotectRTP(_ packet: inout [UInt8]) throws(SRTPError) {
        try inArray(&packet, room: 0) { (buffer, length) throws(SRTPError) in try unprotectRTP(buffer, length: length) }
    }

    /// Protects an RTCP compound packet held in an array.
    public func protectRTCP(_ packet: inout [UInt8]) throws(SRTPError) {
        try inArray(&packet, room: profile.rtcpOverhead) { (buffer, length) throws(SRTPError) in
            try protectRTCP(buffer, length: length)
        }
    }

    /// Unprotects an SRTCP packet held in an array.
    public func unprotectRTCP(_ packet: inout [UInt8]) throws(SRTPError) {
        try inArray(&packet, room: 0) { (buffer, length) throws(SRTPError) in try unprotectRTCP(buffer, length: length)
        }
    }

    private func inArray(
        _ packet: inout [UInt8], room: Int,
        _ body: (UnsafeMutableRawBufferPointer, Int) throws(SRTPError) -> Int
    ) throws(SRTPError) {
        let length = packet.count
        packet.append(contentsOf: repeatElement(0, count: room))
        let result = packet.withUnsafeMutableBytes { buffer in
            Result { () throws(SRTPError) -> Int in try body(buffer, length) }
        }
        switch result {
        case .success(let newLength): packet.removeLast(packet.count - newLength)
        case .failure(let error):
            packet.removeLast(room)
            throw error
        }
    }
}
