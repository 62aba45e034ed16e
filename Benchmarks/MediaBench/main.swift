// MediaBench: per-packet cost of the media hot path for a 20 ms Opus packet (100-byte payload with
// the mid and audio-level header extensions), PolyMedia in Swift against the same work in C
// (Benchmarks/CSRTPBench) calling the same libsrtp2 functions, in one process. Also counts heap
// allocation calls per packet (the C target interposes the allocator; see alloc_count.c).
import CSRTPBench
import PolyCore
import PolyMedia

let iterations = 50_000
let rounds = 5
let audioLevelID: UInt8 = 1
let payloadSize = 100

/// Minimum over rounds of (ns per packet, allocations per packet) for one measured body.
@MainActor func measure(_ body: @MainActor (Int) -> Int64) -> (
    nsPerPacket: Double, allocationsPerPacket: Double, checksum: Int64
) {
    var best = Double.infinity
    var allocations = Double.infinity
    var checksum: Int64 = 0
    _ = body(iterations / 10)  // warm-up (first SSRC seen, caches)
    for _ in 0..<rounds {
        let allocationsBefore = csb_allocation_count()
        let start = Instant.now()
        checksum = body(iterations)
        let elapsed = Instant.now() - start
        let allocationsAfter = csb_allocation_count()
        best = min(best, Double(elapsed.totalNanoseconds) / Double(iterations))
        allocations = min(allocations, Double(allocationsAfter - allocationsBefore) / Double(iterations))
    }
    return (best, allocations, checksum)
}

@MainActor func makePacket() -> [UInt8] {
    var extensions = RTPHeaderExtensions(form: .oneByte)
    try! extensions.setAudioLevel(RTPAudioLevel(voiceActivity: true, level: 42), id: audioLevelID)
    try! extensions.appendMID("0", id: 2)
    let header = RTPHeader(
        marker: false, payloadType: 111, sequenceNumber: 1000, timestamp: 96_000, ssrc: 0x1234_5678,
        extensions: extensions)
    return try! RTPPacket(header: header, payload: (0..<payloadSize).map { UInt8(truncatingIfNeeded: $0 * 31) })
        .serialized()
}

let packet = makePacket()
var output = [UInt8](repeating: 0, count: 1500)

// MARK: RTP parse + serialize
// Receive side: parse the datagram and read the audio level. Send side: write an outgoing packet
// from a header kept across packets (extensions encoded once) and the parsed payload.

let template = try! RTPPacket(parsing: packet).header

// The measured loops are nonisolated functions over their own state, so no actor-isolation checks
// run per packet (closures formed on the main actor would check their executor on every call).
func swiftParseSerialize(_ n: Int, packet: [UInt8], template: RTPHeader, output: inout [UInt8]) -> Int64 {
    var sum: Int64 = 0
    var header = template
    output.withUnsafeMutableBytes { out in
        packet.withUnsafeBytes { bytes in
            for i in 0..<n {
                guard let view = try? RTPPacketView(parsing: packet) else { fatalError("parse failed") }
                let level = view.extensionElements?.audioLevel(id: audioLevelID)
                header.sequenceNumber = view.sequenceNumber &+ UInt16(truncatingIfNeeded: i)
                let payload = UnsafeRawBufferPointer(rebasing: bytes[view.payloadRange])
                guard let written = try? header.write(payload: payload, into: out) else {
                    fatalError("serialize failed")
                }
                sum += Int64(written) + Int64(level?.level ?? 0) + Int64(out[3])
            }
        }
    }
    return sum
}

func cParseSerialize(_ n: Int, packet: [UInt8], output: inout [UInt8]) -> Int64 {
    packet.withUnsafeBufferPointer { p in
        output.withUnsafeMutableBufferPointer { out in
            csb_rtp_parse_serialize(
                p.baseAddress, Int32(p.count), out.baseAddress, Int32(out.count), Int32(audioLevelID), Int32(n))
        }
    }
}

// MARK: SRTP protect + unprotect (+ parse of the result)

let keyAndSalt = (0..<30).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
var srtpBuffer = [UInt8](repeating: 0, count: 1500)
var swiftSequence: UInt16 = 0
var cSequence: UInt16 = 0

func swiftSRTP(
    _ n: Int, send: SRTPSession, receive: SRTPSession, packet: [UInt8], buffer: inout [UInt8], sequence: inout UInt16
) -> Int64 {
    var sum: Int64 = 0
    for _ in 0..<n {
        sequence &+= 1
        let length = buffer.withUnsafeMutableBytes { buffer -> Int in
            packet.withUnsafeBytes { buffer.copyMemory(from: $0) }
            buffer[2] = UInt8(sequence >> 8)
            buffer[3] = UInt8(truncatingIfNeeded: sequence)
            do {
                let protected = try send.protectRTP(buffer, length: packet.count)
                return try receive.unprotectRTP(buffer, length: protected)
            } catch {
                fatalError("SRTP failed: \(error)")
            }
        }
        guard let view = try? RTPPacketView(parsing: buffer[0..<length]) else { fatalError("parse failed") }
        let level = view.extensionElements?.audioLevel(id: audioLevelID)
        sum += Int64(length) + Int64(level?.level ?? 0) + Int64(view.payloadRange.count)
    }
    return sum
}

func cSRTP(_ n: Int, pair: OpaquePointer, packet: [UInt8], buffer: inout [UInt8], sequence: inout UInt16) -> Int64 {
    defer { sequence &+= UInt16(truncatingIfNeeded: n) }
    return packet.withUnsafeBufferPointer { p in
        buffer.withUnsafeMutableBufferPointer { buffer in
            csb_srtp_round_trips(
                pair, p.baseAddress, Int32(p.count), buffer.baseAddress, Int32(buffer.count), Int32(audioLevelID),
                sequence &+ 1, Int32(n))
        }
    }
}

@MainActor func report(
    _ name: String, swift: (nsPerPacket: Double, allocationsPerPacket: Double, checksum: Int64),
    c: (nsPerPacket: Double, allocationsPerPacket: Double, checksum: Int64)
) {
    let ratio = c.nsPerPacket / swift.nsPerPacket
    print(
        "\(name): Swift \(String(format: "%.1f", swift.nsPerPacket)) ns/packet, C \(String(format: "%.1f", c.nsPerPacket)) ns/packet, "
            + "Swift/C speed ratio \(String(format: "%.2f", ratio)) (target >= 0.95) \(ratio >= 0.95 ? "OK" : "BELOW TARGET")"
    )
    print(
        "  allocations/packet: Swift \(String(format: "%.3f", swift.allocationsPerPacket)), C \(String(format: "%.3f", c.allocationsPerPacket))"
            + (swift.checksum == c.checksum ? "" : "  (checksums differ: \(swift.checksum) vs \(c.checksum))"))
}

print("MediaBench: \(packet.count)-byte RTP packet (100-byte Opus payload, mid + audio level extensions),")
print("  \(iterations) packets per round, best of \(rounds) rounds; allocations counted process-wide")
print("  (libsrtp2 on Debian uses NSS, which allocates inside srtp_protect/unprotect: the C column shows that share)")
let parseSwift = measure { swiftParseSerialize($0, packet: packet, template: template, output: &output) }
let parseC = measure { cParseSerialize($0, packet: packet, output: &output) }
report("RTP parse+serialize", swift: parseSwift, c: parseC)

// `MediaBench rtp` measures the RTP part only (for profiling).
let srtpProfiles: [SRTPProfile] =
    CommandLine.arguments.dropFirst().first == "rtp" ? [] : [.aes128CmSha1_80, .aeadAes128Gcm]
for profile in srtpProfiles {
    let salt = Array(keyAndSalt.prefix(16 + profile.saltLength).suffix(profile.saltLength))
    let key = Array(keyAndSalt.prefix(16))
    let material = try! SRTPKeyingMaterial(
        profile: profile, localMasterKey: key, localMasterSalt: salt, remoteMasterKey: key, remoteMasterSalt: salt)
    let sessions = (
        send: try! SRTPSession(keyingMaterial: material), receive: try! SRTPSession(keyingMaterial: material)
    )
    guard
        let pair = (key + salt).withUnsafeBufferPointer({
            csb_srtp_pair_create(Int32(profile.dtlsProfileID), $0.baseAddress)
        })
    else { fatalError("C SRTP set-up failed") }
    let swiftResult = measure {
        swiftSRTP(
            $0, send: sessions.send, receive: sessions.receive, packet: packet, buffer: &srtpBuffer,
            sequence: &swiftSequence)
    }
    let cResult = measure { cSRTP($0, pair: pair, packet: packet, buffer: &srtpBuffer, sequence: &cSequence) }
    report("SRTP \(profile) protect+unprotect+parse", swift: swiftResult, c: cResult)
    csb_srtp_pair_destroy(pair)
}
