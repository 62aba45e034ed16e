// MediaBench: per-packet cost of the media hot path for a 20 ms Opus packet (100-byte payload with
// the mid and audio-level header extensions), PolyMedia in Swift against the same work in C
// (Benchmarks/CSRTPBench) calling the same libsrtp2 functions, in one process. Also counts heap
// allocation calls per packet (the C target interposes the allocator; see alloc_count.c).
import CSRTPBench
import Glibc
import PolyCore
import PolyMedia

let audioLevelID: UInt8 = 1
let payloadSize = 100

/// Best (minimum) ns per packet and allocations per packet of one side, and its checksum.
struct Measurement {
    var nsPerPacket = Double.infinity
    var allocationsPerPacket = Double.infinity
    var checksum: Int64 = 0
}

/// CPU time of the calling thread: the machine is shared, so wall time would count other processes.
func threadCPUNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

/// Runs the Swift and C bodies in interleaved rounds (alternating which goes first, so load changes
/// hit both sides alike) and keeps each side's best round.
@MainActor func compare(
    iterations: Int, rounds: Int, swift: @MainActor (Int) -> Int64, c: @MainActor (Int) -> Int64
) -> (swift: Measurement, c: Measurement) {
    var results = (swift: Measurement(), c: Measurement())
    _ = swift(iterations / 10)  // warm-up (first SSRC seen, caches)
    _ = c(iterations / 10)
    func run(_ body: @MainActor (Int) -> Int64, into result: inout Measurement) {
        let allocationsBefore = csb_allocation_count()
        let start = threadCPUNanoseconds()
        result.checksum = body(iterations)
        let elapsed = threadCPUNanoseconds() - start
        let allocations = csb_allocation_count() - allocationsBefore
        result.nsPerPacket = min(result.nsPerPacket, Double(elapsed) / Double(iterations))
        result.allocationsPerPacket = min(result.allocationsPerPacket, Double(allocations) / Double(iterations))
    }
    for round in 0..<rounds {
        if round % 2 == 0 {
            run(swift, into: &results.swift)
            run(c, into: &results.c)
        } else {
            run(c, into: &results.c)
            run(swift, into: &results.swift)
        }
    }
    return results
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
// Receive side: parse the datagram (which validates every extension element in one walk) and read
// the audio level. Send side: write an outgoing packet from the stream's header encoded once
// (`RTPHeaderTemplate`: copy, patch sequence/timestamp/marker/audio level) and the parsed payload.
// The C side does the same: one validating walk that picks the audio level up, then copies of the
// received header, extension block and payload with the sequence number patched.

let template = try! RTPHeaderTemplate(header: RTPPacket(parsing: packet).header, audioLevelID: audioLevelID)

/// One packet: parse `datagram` (the bytes of `raw`), read its audio level, write it out again
/// from `template` with the parsed payload. Returns a checksum term.
@inline(__always) func parseAndSerialize<Bytes: RandomAccessCollection>(
    _ datagram: Bytes, raw: UnsafeRawBufferPointer, template: RTPHeaderTemplate, index: Int,
    into out: UnsafeMutableRawBufferPointer
) -> Int64 where Bytes.Element == UInt8, Bytes.Index == Int {
    let view: RTPPacketView<Bytes>
    do { view = try RTPPacketView(parsing: datagram) } catch { fatalError("parse failed: \(error)") }
    let level = view.audioLevel(id: audioLevelID)
    let payload = UnsafeRawBufferPointer(rebasing: raw[view.payloadRange])
    let written: Int
    do {
        written = try template.write(
            sequenceNumber: view.sequenceNumber &+ UInt16(truncatingIfNeeded: index), timestamp: view.timestamp,
            marker: view.marker, audioLevel: level, payload: payload, into: out)
    } catch {
        fatalError("serialize failed: \(error)")
    }
    return Int64(written) &+ Int64(level?.level ?? 0) &+ Int64(out[3])  // wrapping, like the C sum
}

// The measured loops are nonisolated functions over their own state, so no actor-isolation checks
// run per packet (closures formed on the main actor would check their executor on every call).

/// The per-packet path: the view parses the received bytes through an `UnsafeRawBufferPointer`.
func swiftParseSerialize(_ n: Int, packet: [UInt8], template: RTPHeaderTemplate, output: inout [UInt8]) -> Int64 {
    var sum: Int64 = 0
    output.withUnsafeMutableBytes { out in
        packet.withUnsafeBytes { bytes in
            for i in 0..<n { sum &+= parseAndSerialize(bytes, raw: bytes, template: template, index: i, into: out) }
        }
    }
    return sum
}

/// The same with the view over the `[UInt8]` itself (convenient off the hot path; shown for reference).
func swiftParseSerializeArray(_ n: Int, packet: [UInt8], template: RTPHeaderTemplate, output: inout [UInt8]) -> Int64 {
    var sum: Int64 = 0
    output.withUnsafeMutableBytes { out in
        packet.withUnsafeBytes { bytes in
            for i in 0..<n { sum &+= parseAndSerialize(packet, raw: bytes, template: template, index: i, into: out) }
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
    packet.withUnsafeBytes { packet in
        buffer.withUnsafeMutableBytes { buffer in
            for _ in 0..<n {
                sequence &+= 1
                buffer.copyMemory(from: packet)
                buffer[2] = UInt8(sequence >> 8)
                buffer[3] = UInt8(truncatingIfNeeded: sequence)
                let length: Int
                do {
                    let protected = try send.protectRTP(buffer, length: packet.count)
                    length = try receive.unprotectRTP(buffer, length: protected)
                } catch {
                    fatalError("SRTP failed: \(error)")
                }
                let received = UnsafeRawBufferPointer(rebasing: buffer[0..<length])
                guard let view = try? RTPPacketView(parsing: received) else { fatalError("parse failed") }
                let level = view.audioLevel(id: audioLevelID)
                sum += Int64(length) + Int64(level?.level ?? 0) + Int64(view.payloadRange.count)
            }
        }
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

@MainActor func report(_ name: String, _ results: (swift: Measurement, c: Measurement)) {
    let (swift, c) = results
    let ratio = c.nsPerPacket / swift.nsPerPacket
    print(
        "\(name): Swift \(String(format: "%.1f", swift.nsPerPacket)) ns/packet, C \(String(format: "%.1f", c.nsPerPacket)) ns/packet, "
            + "Swift/C speed ratio \(String(format: "%.2f", ratio)) (target >= 0.95) \(ratio >= 0.95 ? "OK" : "BELOW TARGET")"
    )
    print(
        "  allocations/packet: Swift \(String(format: "%.3f", swift.allocationsPerPacket)), C \(String(format: "%.3f", c.allocationsPerPacket))"
            + (swift.checksum == c.checksum ? "" : "  (checksums differ: \(swift.checksum) vs \(c.checksum))"))
}

let rtpIterations = 200_000
let rtpRounds = 15
let srtpIterations = 5_000
let srtpRounds = 9
print("MediaBench: \(packet.count)-byte RTP packet (100-byte Opus payload, mid + audio level extensions).")
print("  Per-thread CPU time, best of interleaved Swift/C rounds (RTP \(rtpRounds) x \(rtpIterations) packets,")
print("  SRTP \(srtpRounds) x \(srtpIterations)); allocations counted process-wide (libsrtp2 on Debian uses NSS,")
print("  which allocates inside srtp_protect/unprotect: the C column shows that share).")
report(
    "RTP parse+serialize",
    compare(
        iterations: rtpIterations, rounds: rtpRounds,
        swift: { swiftParseSerialize($0, packet: packet, template: template, output: &output) },
        c: { cParseSerialize($0, packet: packet, output: &output) }))
report(
    "RTP parse+serialize, view over [UInt8] (reference)",
    compare(
        iterations: rtpIterations, rounds: rtpRounds,
        swift: { swiftParseSerializeArray($0, packet: packet, template: template, output: &output) },
        c: { cParseSerialize($0, packet: packet, output: &output) }))

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
    report(
        "SRTP \(profile) protect+unprotect+parse",
        compare(
            iterations: srtpIterations, rounds: srtpRounds,
            swift: {
                swiftSRTP(
                    $0, send: sessions.send, receive: sessions.receive, packet: packet, buffer: &srtpBuffer,
                    sequence: &swiftSequence)
            },
            c: { cSRTP($0, pair: pair, packet: packet, buffer: &srtpBuffer, sequence: &cSequence) }))
    csb_srtp_pair_destroy(pair)
}
