// MediaBench: per-packet cost of the media hot path for a 20 ms Opus packet (100-byte payload with
// the mid and audio-level header extensions), PolyMedia in Swift against the same work in C
// (Benchmarks/CSRTPBench) calling the same libsrtp2 functions, in one process. Also counts heap
// allocation calls per packet (the C target interposes the allocator; see alloc_count.c).
//
//   MediaBench                      RTP and SRTP comparisons; ends with one `RESULT_JSON {...}` line
//   MediaBench rtp                  the RTP comparisons only
//   MediaBench count CASE SIDE N    runs one loop once over N packets (CASE: rtp, rtp-array, srtp-aescm,
//                                   srtp-gcm; SIDE: swift, c), for Benchmarks/MediaBench/callgrind.sh
import CSRTPBench
import Foundation
import PolyCore
import PolyMedia

let audioLevelID: UInt8 = 1
let payloadSize = 100

func makePacket() -> [UInt8] {
    var extensions = RTPHeaderExtensions(form: .oneByte)
    try! extensions.setAudioLevel(RTPAudioLevel(voiceActivity: true, level: 42), id: audioLevelID)
    try! extensions.appendMID("0", id: 2)
    let header = RTPHeader(
        marker: false, payloadType: 111, sequenceNumber: 1000, timestamp: 96_000, ssrc: 0x1234_5678,
        extensions: extensions)
    return try! RTPPacket(header: header, payload: (0..<payloadSize).map { UInt8(truncatingIfNeeded: $0 * 31) })
        .serialized()
}

/// A buffer of its own for each input and output (16-byte aligned, as libsrtp needs 4), set up once.
func makeBuffer(_ count: Int, copying bytes: [UInt8] = []) -> UnsafeMutableRawBufferPointer {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
    buffer.initializeMemory(as: UInt8.self, repeating: 0)
    buffer.copyBytes(from: bytes)
    return buffer
}

let packetBytes = makePacket()
let packet = UnsafeRawBufferPointer(makeBuffer(packetBytes.count, copying: packetBytes))
let output = makeBuffer(1500)
let template = try! RTPHeaderTemplate(header: RTPPacket(parsing: packetBytes).header, audioLevelID: audioLevelID)

/// The two sides of the RTP comparison and of the reference one (view over the array).
let rtpSwift: @MainActor (Int) -> Int64 = {
    swiftRTPLoop($0, packet: packet, template: template, audioLevelID: audioLevelID, output: output)
}
let rtpArraySwift: @MainActor (Int) -> Int64 = {
    swiftRTPArrayLoop($0, packet: packetBytes, template: template, audioLevelID: audioLevelID, output: output)
}
let rtpC: @MainActor (Int) -> Int64 = { cRTPLoop($0, packet: packet, audioLevelID: audioLevelID, output: output) }

/// Swift sessions and a C pair keyed alike for one profile, with the loops over them.
@MainActor final class SRTPSides {
    let send: SRTPSession
    let receive: SRTPSession
    let pair: OpaquePointer
    let buffer = makeBuffer(1500)
    var swiftSequence: UInt16 = 0
    var cSequence: UInt16 = 0

    init(profile: SRTPProfile) {
        let keyAndSalt = (0..<30).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
        let key = Array(keyAndSalt.prefix(16))
        let salt = Array(keyAndSalt.prefix(16 + profile.saltLength).suffix(profile.saltLength))
        let material = try! SRTPKeyingMaterial(
            profile: profile, localMasterKey: key, localMasterSalt: salt, remoteMasterKey: key,
            remoteMasterSalt: salt)
        send = try! SRTPSession(keyingMaterial: material)  // initialises libsrtp before the C pair
        receive = try! SRTPSession(keyingMaterial: material)
        guard
            let pair = (key + salt).withUnsafeBufferPointer({
                csb_srtp_pair_create(Int32(profile.dtlsProfileID), $0.baseAddress)
            })
        else { fatalError("C SRTP set-up failed") }
        self.pair = pair
    }

    func swift(_ n: Int) -> Int64 {
        swiftSRTPLoop(
            n, send: send, receive: receive, packet: packet, audioLevelID: audioLevelID, buffer: buffer,
            sequence: &swiftSequence)
    }

    func c(_ n: Int) -> Int64 {
        cSRTPLoop(n, pair: pair, packet: packet, audioLevelID: audioLevelID, buffer: buffer, sequence: &cSequence)
    }
}

func format(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }

@MainActor func report(_ name: String, _ result: Comparison) {
    let ratio = result.medianRatio
    let ratios = result.ratios.sorted()
    print(
        "\(name): Swift \(format(result.swift.medianNanoseconds)) ns/packet, C \(format(result.c.medianNanoseconds)) "
            + "ns/packet; C/Swift time ratio (median of \(ratios.count) rounds) \(format(ratio, 3)) "
            + "[quartiles \(format(ratios[ratios.count / 4], 3))–\(format(ratios[ratios.count * 3 / 4], 3))] "
            + "(target >= 0.95) \(ratio >= 0.95 ? "OK" : "BELOW TARGET")")
    print(
        "  allocations/packet: Swift \(format(result.swift.allocationsPerPacket, 3)), "
            + "C \(format(result.c.allocationsPerPacket, 3))"
            + (result.swift.checksum == result.c.checksum
                ? "" : "  (checksums differ: \(result.swift.checksum) vs \(result.c.checksum))"))
}

// MARK: - `count` mode: one loop, for instruction counting under callgrind

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "count" {
    guard arguments.count == 4, let n = Int(arguments[3]), ["swift", "c"].contains(arguments[2]) else {
        print("usage: MediaBench count rtp|rtp-array|srtp-aescm|srtp-gcm swift|c PACKETS")
        exit(2)
    }
    let swift = arguments[2] == "swift"
    let checksum: Int64
    switch arguments[1] {
    case "rtp": checksum = swift ? rtpSwift(n) : rtpC(n)
    case "rtp-array": checksum = swift ? rtpArraySwift(n) : rtpC(n)
    case "srtp-aescm", "srtp-gcm":
        let sides = SRTPSides(profile: arguments[1] == "srtp-gcm" ? .aeadAes128Gcm : .aes128CmSha1_80)
        checksum = swift ? sides.swift(n) : sides.c(n)
    default:
        print("unknown case \(arguments[1])")
        exit(2)
    }
    print("checksum \(checksum)")
    exit(0)
}

// MARK: - Comparisons

guard allocationCounterSeesSwift() else {
    print("MediaBench: the allocation counter does not see Swift allocations; counts would be meaningless")
    exit(1)
}
let rtpPackets = 20_000
let rtpRounds = 101
let srtpPackets = 400
let srtpRounds = 41
print("MediaBench: \(packetBytes.count)-byte RTP packet (100-byte Opus payload, mid + audio level extensions).")
print("  Per-thread CPU time; Swift and C rounds interleaved (RTP \(rtpRounds) x \(rtpPackets) packets,")
print("  SRTP \(srtpRounds) x \(srtpPackets)); ratio = median over rounds of C time / Swift time (1 = equal,")
print("  below 1 = Swift slower). Allocation calls counted process-wide over all measured rounds (the")
print("  counter is checked to see Swift allocations); libsrtp2 on Debian uses NSS, which allocates inside")
print("  srtp_protect/unprotect: the C column shows that share.")

/// The figures of the `RESULT_JSON` line (numbers rounded to 3 decimals).
var figures: [String: Any] = ["bench": "MediaBench", "allocation_counter_verified": true]
@MainActor func record(_ key: String, _ value: Double) { figures[key] = (value * 1000).rounded() / 1000 }
let rtp = compare(packetsPerRound: rtpPackets, rounds: rtpRounds, swift: rtpSwift, c: rtpC)
report("RTP parse+serialize", rtp)
record("rtp_parse_serialize_ns_swift", rtp.swift.medianNanoseconds)
record("rtp_parse_serialize_ns_c", rtp.c.medianNanoseconds)
record("rtp_ratio", rtp.medianRatio)
record("allocations_per_packet", rtp.swift.allocationsPerPacket)
record("rtp_allocations_per_packet_c", rtp.c.allocationsPerPacket)
let rtpArray = compare(packetsPerRound: rtpPackets, rounds: rtpRounds / 2, swift: rtpArraySwift, c: rtpC)
report("RTP parse+serialize, view over [UInt8] (reference)", rtpArray)
record("rtp_array_ratio", rtpArray.medianRatio)
record("rtp_array_allocations_per_packet", rtpArray.swift.allocationsPerPacket)

if arguments.first != "rtp" {
    var srtpRatios: [Double] = []
    for (profile, key) in [(SRTPProfile.aes128CmSha1_80, "srtp_aescm"), (.aeadAes128Gcm, "srtp_gcm")] {
        let sides = SRTPSides(profile: profile)
        let result = compare(
            packetsPerRound: srtpPackets, rounds: srtpRounds, swift: sides.swift, c: sides.c)
        report("SRTP \(profile) protect+unprotect+parse", result)
        print(
            "  allocations/packet added by the Swift wrapper (Swift - C): "
                + format(result.swift.allocationsPerPacket - result.c.allocationsPerPacket, 3))
        srtpRatios.append(result.medianRatio)
        record("\(key)_ns_swift", result.swift.medianNanoseconds)
        record("\(key)_ns_c", result.c.medianNanoseconds)
        record("\(key)_ratio", result.medianRatio)
        record("\(key)_allocations_per_packet_swift", result.swift.allocationsPerPacket)
        record("\(key)_allocations_per_packet_c", result.c.allocationsPerPacket)
        record(
            "\(key)_wrapper_allocations_per_packet", result.swift.allocationsPerPacket - result.c.allocationsPerPacket)
        csb_srtp_pair_destroy(sides.pair)
    }
    record("srtp_ratio", srtpRatios.min() ?? .nan)
}
let json = try! JSONSerialization.data(withJSONObject: figures, options: [.sortedKeys])
print("RESULT_JSON " + String(decoding: json, as: UTF8.self))
