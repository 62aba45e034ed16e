// Fuzzes SRTPSession (libsrtp2 underneath) with fixed keys: arbitrary bytes to unprotect (RTP and
// RTCP) must be refused with a typed error or yield a shorter packet; arbitrary plaintext that
// protect accepts must unprotect to the same bytes; a protected packet with one byte changed must
// never be delivered, and the untouched packet must still be.
//
// Input: byte 0 picks the profile (bit 0: AES-CM-80 or AEAD-GCM); then records, each
//   op (1 byte: op % 6, see `Operation`) · length (2 bytes, big-endian, mod 1500) · for the tamper
//   ops: position (2 bytes) and xor mask (1 byte) · `length` bytes of packet (fewer if the input ends).
// Fresh sessions per input keep runs reproducible; records in one input share them, so replay
// windows and rollover counters are exercised across packets.
import PolyMedia

/// The libsrtp validation keys (test/srtp_driver.c): seeds can hold its known-answer packets.
func keyingMaterial(_ profile: SRTPProfile) -> SRTPKeyingMaterial {
    let (key, salt): ([UInt8], [UInt8]) =
        profile == .aes128CmSha1_80
        ? (
            [0xE1, 0xF9, 0x7A, 0x0D, 0x3E, 0x01, 0x8B, 0xE0, 0xD6, 0x4F, 0xA3, 0x2C, 0x06, 0xDE, 0x41, 0x39],
            [0x0E, 0xC6, 0x75, 0xAD, 0x49, 0x8A, 0xFE, 0xEB, 0xB6, 0x96, 0x0B, 0x3A, 0xAB, 0xE6]
        )
        : (Array(0x00...0x0F), Array(0xA0...0xAB))
    do {
        return try SRTPKeyingMaterial(
            profile: profile, localMasterKey: key, localMasterSalt: salt, remoteMasterKey: key,
            remoteMasterSalt: salt)
    } catch {
        fatalError("fixed keys refused: \(error)")
    }
}

/// Kept for the whole run: libsrtp's NSS backend initialises NSS per cipher and shuts it down with
/// the last one, so without a live session every input would load NSS's libraries again.
nonisolated(unsafe) let keepNSSLoaded = Sessions(profile: .aes128CmSha1_80)

enum Operation: UInt8 {
    case unprotectRTP, unprotectRTCP, roundTripRTP, roundTripRTCP, tamperRTP, tamperRTCP
}

/// A cursor over the fuzzer's input that yields zeros past the end.
struct InputReader {
    let data: UnsafeBufferPointer<UInt8>
    var position = 0
    var isAtEnd: Bool { position >= data.count }

    mutating func byte() -> UInt8 {
        defer { position += 1 }
        return position < data.count ? data[position] : 0
    }

    mutating func uint16() -> Int { Int(byte()) << 8 | Int(byte()) }

    mutating func bytes(_ count: Int) -> UnsafeBufferPointer<UInt8> {
        let start = min(position, data.count)
        let end = min(start + count, data.count)
        position = end
        return UnsafeBufferPointer(rebasing: data[start..<end])
    }
}

/// Fresh sessions for one input: `receiver` sees only the fuzzer's bytes; `loop` protects and
/// unprotects its own packets (local and remote keys are the same).
struct Sessions {
    let profile: SRTPProfile
    let receiver: SRTPSession
    let loop: SRTPSession
    /// 4-byte aligned scratch buffers (libsrtp's requirement), big enough for any record and a canary.
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 16)
    let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 16)
    static let canaryLength = 64

    init(profile: SRTPProfile) {
        self.profile = profile
        do {
            receiver = try SRTPSession(keyingMaterial: keyingMaterial(profile))
            loop = try SRTPSession(keyingMaterial: keyingMaterial(profile))
        } catch {
            fatalError("SRTP set-up failed: \(error)")
        }
    }

    func deallocate() {
        buffer.deallocate()
        copy.deallocate()
    }

    enum Step {
        case protect, unprotect
    }

    /// Runs one libsrtp operation on `scratch[0..<length]`, handing it exactly `length + room` bytes
    /// followed by a canary: libsrtp is not instrumented, so a write past its room would go unseen.
    func run(
        _ step: Step, rtcp: Bool, session: SRTPSession, on scratch: UnsafeMutableRawBufferPointer, length: Int
    ) -> Result<Int, SRTPError> {
        let room = step == .unprotect ? 0 : rtcp ? profile.rtcpOverhead : profile.rtpOverhead
        let given = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<(length + room)])
        let canary = UnsafeMutableRawBufferPointer(
            rebasing: scratch[(length + room)..<(length + room + Self.canaryLength)])
        canary.initializeMemory(as: UInt8.self, repeating: 0xA5)
        let result = Result { () throws(SRTPError) -> Int in
            switch (step, rtcp) {
            case (.protect, false): try session.protectRTP(given, length: length)
            case (.protect, true): try session.protectRTCP(given, length: length)
            case (.unprotect, false): try session.unprotectRTP(given, length: length)
            case (.unprotect, true): try session.unprotectRTCP(given, length: length)
            }
        }
        precondition(canary.allSatisfy { $0 == 0xA5 }, "libsrtp wrote past the buffer it was given")
        if case .success(let newLength) = result {
            let valid = step == .protect ? newLength > length && newLength <= length + room : newLength <= length
            precondition(newLength >= 0 && valid, "\(step) returned an impossible length \(newLength) for \(length)")
        }
        return result
    }

    /// Arbitrary bytes to unprotect: a typed error, or a shorter packet (checked by `run`).
    func unprotect(_ packet: UnsafeBufferPointer<UInt8>, rtcp: Bool) {
        buffer.copyMemory(from: UnsafeRawBufferPointer(packet))
        _ = run(.unprotect, rtcp: rtcp, session: receiver, on: buffer, length: packet.count)
    }

    /// Protects `packet` into `buffer` with `loop`; nil when refused (malformed header, repeated index).
    func protect(_ packet: UnsafeBufferPointer<UInt8>, rtcp: Bool) -> Int? {
        buffer.copyMemory(from: UnsafeRawBufferPointer(packet))
        return try? run(.protect, rtcp: rtcp, session: loop, on: buffer, length: packet.count).get()
    }

    /// What protect accepts, unprotect restores exactly.
    func roundTrip(_ packet: UnsafeBufferPointer<UInt8>, rtcp: Bool) {
        guard let protected = protect(packet, rtcp: rtcp) else { return }
        let result = run(.unprotect, rtcp: rtcp, session: loop, on: buffer, length: protected)
        guard case .success(let length) = result else {
            fatalError("a packet protect accepted was refused by unprotect: \(result)")
        }
        precondition(
            length == packet.count && buffer.prefix(length).elementsEqual(packet), "round trip changed the packet")
    }

    /// A protected packet with one byte changed is refused; the original still goes through.
    func tamper(_ packet: UnsafeBufferPointer<UInt8>, rtcp: Bool, position: Int, mask: UInt8) {
        guard let protected = protect(packet, rtcp: rtcp) else { return }
        copy.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer.prefix(protected)))
        copy[position % protected] ^= mask == 0 ? 1 : mask
        if case .success = run(.unprotect, rtcp: rtcp, session: loop, on: copy, length: protected) {
            fatalError("a tampered packet was delivered")
        }
        let result = run(.unprotect, rtcp: rtcp, session: loop, on: buffer, length: protected)
        guard case .success(let length) = result, length == packet.count, buffer.prefix(length).elementsEqual(packet)
        else { fatalError("the untouched packet was refused after a tampered copy: \(result)") }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSRTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = InputReader(data: UnsafeBufferPointer(start: data, count: size))
    guard !input.isAtEnd else { return 0 }
    _ = keepNSSLoaded.profile
    let sessions = Sessions(profile: input.byte() & 1 == 0 ? .aes128CmSha1_80 : .aeadAes128Gcm)
    defer { sessions.deallocate() }
    while !input.isAtEnd {
        guard let operation = Operation(rawValue: input.byte() % 6) else { break }
        let length = input.uint16() % 1500
        switch operation {
        case .unprotectRTP: sessions.unprotect(input.bytes(length), rtcp: false)
        case .unprotectRTCP: sessions.unprotect(input.bytes(length), rtcp: true)
        case .roundTripRTP: sessions.roundTrip(input.bytes(length), rtcp: false)
        case .roundTripRTCP: sessions.roundTrip(input.bytes(length), rtcp: true)
        case .tamperRTP, .tamperRTCP:
            let position = input.uint16()
            let mask = input.byte()
            sessions.tamper(input.bytes(length), rtcp: operation == .tamperRTCP, position: position, mask: mask)
        }
    }
    return 0
}
