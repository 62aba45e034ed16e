// JitterBench: CPU cost of the adaptive jitter buffer's playout per 20 ms of audio, against decoding the same
// packets with Opus alone in the same process (the floor every playout pays), and heap allocations per frame
// (counted process-wide by the allocator interposer in Benchmarks/CSRTPBench).
//
// "Buffer only" is the same playout with a stand-in decoder that copies the original audio, so the codec drops out
// and what remains is the jitter buffer's own per-packet and per-pull work (what this benchmark exists to watch).
// Workloads, in virtual time with 10 ms pulls:
//   steady      packets every 20 ms: normal playout
//   accelerate  the sender's clock runs 20% fast, so the buffer is above target and compresses (accelerate)
//   expand      the sender's clock runs 20% slow, so the buffer stretches (preemptive expand) and conceals (expand)
//   no-tsm      the accelerate workload with time-scale modification off (maximumStretchRatio = 0)
//   jitter      packets every 20 ms delayed by a seeded uniform 0–100 ms each (reordered): the delay estimator's
//               histograms spread over 50 bins, as under a loaded network or machine
// Then Opus decode alone with 1 and 160 decoders taken in turn (a loaded bridge's or load generator's calls, each
// decoder cold in cache by its next turn): PolyAudio's OpusDecoder against libopus's Int16 opus_decode called directly.
// Times are per-thread CPU time (the machine is shared), the minimum over rounds. A hash of every played sample and
// operation (from one extra, untimed run) shows whether an optimisation changed what the buffer plays.
import COpus
import CSRTPBench
import Foundation
import PolyAudio
import PolyCore
import PolyMedia

let packetCount = 500  // 10 s of distinct packets, reused cyclically
let framesPerRound = 1500  // 30 s of playout per round
let rounds = 5

/// A voiced buzz with a gliding pitch, syllable-rate loudness and pauses: both voiced and quiet blocks occur,
/// so every branch of the playout decision (pitch search, quiet shortcut) is exercised.
func voice(seconds: Double) -> [Int16] {
    var phase = 0.0
    return (0..<Int(seconds * 48000)).map { index in
        let time = Double(index) / 48000
        let pitch = 140 + 60 * sin(2 * .pi * 0.3 * time)
        phase += 2 * .pi * pitch / 48000
        let syllable = max(0, sin(2 * .pi * 2.5 * time))
        let pause = (time.truncatingRemainder(dividingBy: 3)) > 2.4 ? 0.0 : 1.0
        let buzz = (1...12).reduce(0.0) { $0 + sin(Double($1) * phase) / Double($1) }
        return Int16(clamping: Int(7000 * syllable * pause * buzz))
    }
}

func threadCPUNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

let speech = voice(seconds: Double(packetCount) * 0.02)
let encoder = try OpusEncoder(OpusEncoderSettings(bitrate: 32000, inbandFEC: true, packetLossPercent: 5))
let payloads: [[UInt8]] = try (0..<packetCount).map { k in
    try encoder.encode(Array(speech[(k * 960)..<((k + 1) * 960)]))
}

let countedOperations: [PlayoutOperation] = [.normal, .accelerate, .preemptiveExpand, .expand, .merge]

struct Measurement {
    var nanosecondsPerFrame = Double.infinity
    var allocationsPerFrame = Double.infinity
    var operations: [PlayoutOperation: Int] = [:]
    var outputHash: UInt64 = 0
}

/// FNV-1a over played samples and operations.
struct OutputHash {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325
    mutating func add(_ word: UInt16) {
        value = (value ^ UInt64(word & 0xff)) &* 0x100_0000_01b3
        value = (value ^ UInt64(word >> 8)) &* 0x100_0000_01b3
    }
}

/// Opus alone: decode every packet once per 20 ms frame (one round).
func measureDecode(into result: inout Measurement) throws {
    let decoder = try OpusDecoder(sampleRate: 48000, channels: 1)
    var pcm = [Int16](repeating: 0, count: 960)
    var checksum = 0
    do {
        let allocations = csb_allocation_count()
        let start = threadCPUNanoseconds()
        try pcm.withUnsafeMutableBufferPointer { output in
            for frame in 0..<framesPerRound {
                let n = try payloads[frame % packetCount].withUnsafeBufferPointer {
                    try decoder.decode($0, into: output)
                }
                checksum &+= n &+ Int(output[n / 2])
            }
        }
        let elapsed = threadCPUNanoseconds() - start
        result.nanosecondsPerFrame = min(result.nanosecondsPerFrame, Double(elapsed) / Double(framesPerRound))
        result.allocationsPerFrame = min(
            result.allocationsPerFrame, Double(csb_allocation_count() - allocations) / Double(framesPerRound))
    }
    if checksum == 42 { print("") }  // keeps the decode observable
}

/// Stands in for Opus by copying the original audio: playout with it costs only the buffer's own work.
struct ReplayDecoder: PlayoutDecoder {
    private var next = 0

    mutating func decode(_ packet: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        defer { next += 1 }
        return decodeAhead(packet, into: output)
    }

    func decodeAhead(_ packet: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        let start = (next % packetCount) * 960
        return speech.withUnsafeBufferPointer { speech in
            output.baseAddress!.update(from: speech.baseAddress! + start, count: 960)
            return 960
        }
    }

    func conceal(into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        output.update(repeating: 0)
        return output.count
    }

    func decodeFEC(from nextPacket: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        conceal(into: output)
    }

    /// The same rule as Opus (the packet's LBRR flag), so the buffer takes the same paths and pays for the parse.
    func carriesFEC(_ packet: UnsafeBufferPointer<UInt8>) -> Bool { OpusPacketInspection.carriesLBRR(packet) }

    mutating func reset() { next = 0 }
}

/// One round: plays `packets` (inserted at their arrival) through `buffer` in 10 ms pulls; adds the round's CPU
/// time and allocations to `result`, or only hashes what was played into it (the untimed run).
func play<Decoder: PlayoutDecoder>(
    _ packets: [JitterPacket], through buffer: inout JitterBuffer<Decoder>, hashing: Bool,
    into result: inout Measurement
) {
    var frame = [Int16](repeating: 0, count: 480)
    var hash = OutputHash()
    var counts = [Int](repeating: 0, count: countedOperations.count)  // an array: counting never allocates
    var next = 0
    let allocations = csb_allocation_count()
    let start = threadCPUNanoseconds()
    frame.withUnsafeMutableBufferPointer { output in
        for pull in 0..<(2 * framesPerRound) {
            let now = Instant(nanoseconds: Int64(pull) * 10_000_000)
            while next < packets.count, packets[next].arrival <= now {
                let packet = packets[next]
                packet.payload.withUnsafeBufferPointer { payload in  // as the endpoint's receive path does
                    buffer.insert(
                        payload: payload, timestamp: packet.timestamp, ssrc: packet.ssrc, marker: packet.marker,
                        arrival: packet.arrival, at: packet.arrival)
                }
                next += 1
            }
            let operation = buffer.pull(at: now, into: output)
            if let index = countedOperations.firstIndex(of: operation) { counts[index] += 1 }
            if hashing {
                for sample in output { hash.add(UInt16(bitPattern: sample)) }
                hash.add(UInt16(countedOperations.firstIndex(of: operation) ?? 99))
            }
        }
    }
    let elapsed = threadCPUNanoseconds() - start
    if hashing {
        result.outputHash = hash.value
        return
    }
    result.nanosecondsPerFrame = min(result.nanosecondsPerFrame, Double(elapsed) / Double(framesPerRound))
    result.allocationsPerFrame = min(
        result.allocationsPerFrame, Double(csb_allocation_count() - allocations) / Double(framesPerRound))
    result.operations = Dictionary(uniqueKeysWithValues: zip(countedOperations, counts))
}

/// Playout through a JitterBuffer with packets sent every `sendIntervalMs` of the receiver's clock, with Opus and
/// with the replay decoder (the buffer alone), and the Opus baseline, in alternating rounds so all see the same
/// machine load.
func measurePlayout(sendIntervalMs: Double, jitterMs: Double, configuration: JitterBufferConfiguration) throws -> (
    playout: Measurement, bufferOnly: Measurement, decode: Measurement
) {
    var playout = Measurement()
    var bufferOnly = Measurement()
    var decode = Measurement()
    var random = SeededRandom(seed: 20_261_130)
    let packets = (0..<(framesPerRound + 50)).map { k in
        JitterPacket(
            sequence: UInt16(truncatingIfNeeded: k), timestamp: UInt32(truncatingIfNeeded: k * 960), ssrc: 0xbe4c,
            marker: k == 0, payload: payloads[k % packetCount],
            arrival: Instant(nanoseconds: Int64((Double(k) * sendIntervalMs + 40 + random.unit() * jitterMs) * 1e6)))
    }.sorted { $0.arrival < $1.arrival }
    for round in 0...rounds {
        let hashing = round == 0  // the untimed run
        if !hashing { try measureDecode(into: &decode) }
        var opus = JitterBuffer(decoder: try OpusDecoder(sampleRate: 48000, channels: 1), configuration: configuration)
        play(packets, through: &opus, hashing: hashing, into: &playout)
        var replay = JitterBuffer(decoder: ReplayDecoder(), configuration: configuration)
        play(packets, through: &replay, hashing: hashing, into: &bufferOnly)
    }
    return (playout, bufferOnly, decode)
}

/// Opus decode alone with `calls` decoders decoded in turn, as a server's or load generator's calls are (each
/// decoder's state and buffers cold in cache again by its next turn): PolyAudio's OpusDecoder against libopus's
/// Int16 `opus_decode` called directly, alternating rounds. Returns ns per decoded 20 ms frame for each.
func measureManyDecoders(calls: Int, frames: Int) throws -> (swift: Double, libopus: Double) {
    var best = (swift: Double.infinity, libopus: Double.infinity)
    var pcm = [Int16](repeating: 0, count: 960)
    for round in 0..<(2 * rounds) {
        let useSwift = round % 2 == 0
        let decoders = try (0..<calls).map { _ in try OpusDecoder(sampleRate: 48000, channels: 1) }
        var error: Int32 = 0
        let states = (0..<calls).map { _ in opus_decoder_create(48000, 1, &error)! }
        defer { states.forEach { opus_decoder_destroy($0) } }
        let start = threadCPUNanoseconds()
        try pcm.withUnsafeMutableBufferPointer { output in
            for frame in 0..<frames {
                for call in 0..<calls {
                    try payloads[(frame + call * 7) % packetCount].withUnsafeBufferPointer { packet in
                        if useSwift {
                            _ = try decoders[call].decode(packet, into: output)
                        } else {
                            _ = opus_decode(
                                states[call], packet.baseAddress, Int32(packet.count), output.baseAddress!, 960, 0)
                        }
                    }
                }
            }
        }
        let perFrame = Double(threadCPUNanoseconds() - start) / Double(frames * calls)
        if useSwift { best.swift = min(best.swift, perFrame) } else { best.libopus = min(best.libopus, perFrame) }
    }
    return best
}

precondition(csb_allocation_count() > 0, "allocation counter inactive")
var noStretch = JitterBufferConfiguration()
noStretch.maximumStretchRatio = 0
let workloads: [(String, Double, Double, JitterBufferConfiguration)] = [
    ("steady", 20, 0, JitterBufferConfiguration()), ("accelerate", 20 / 1.2, 0, JitterBufferConfiguration()),
    ("expand", 20 * 1.2, 0, JitterBufferConfiguration()), ("no-tsm", 20 / 1.2, 0, noStretch),
    ("jitter", 20, 100, JitterBufferConfiguration()),
]
print("JitterBench: ns of thread CPU per 20 ms playout frame (48 kHz mono Opus 32 kbps), min of \(rounds) rounds")
print("  buffer only: the same playout with a decoder that copies the original audio (the buffer's own cost)")
print(
    "  workload     ns/frame  decode ns  x decode  buffer only  allocs/frame  accel  pre-exp  expand  normal"
        + "  output hash")
var json: [String] = ["\"bench\": \"JitterBench\""]
for (name, interval, jitter, configuration) in workloads {
    let (m, bufferOnly, decode) = try measurePlayout(
        sendIntervalMs: interval, jitterMs: jitter, configuration: configuration)
    let ratio = m.nanosecondsPerFrame / decode.nanosecondsPerFrame
    let allocations = max(m.allocationsPerFrame, bufferOnly.allocationsPerFrame)
    let ops = m.operations
    print(
        "  \(name.padding(toLength: 11, withPad: " ", startingAt: 0))"
            + String(
                format: " %9.0f  %9.0f  %8.2f  %11.0f  %12.3f  %5d  %7d  %6d  %6d  %016llx", m.nanosecondsPerFrame,
                decode.nanosecondsPerFrame, ratio, bufferOnly.nanosecondsPerFrame, allocations,
                ops[.accelerate] ?? 0, ops[.preemptiveExpand] ?? 0, ops[.expand] ?? 0, ops[.normal] ?? 0,
                m.outputHash ^ bufferOnly.outputHash))
    json.append(
        "\"\(name)\": {\"ns_per_frame\": \(Int(m.nanosecondsPerFrame)), "
            + "\"opus_decode_ns_per_frame\": \(Int(decode.nanosecondsPerFrame)), "
            + "\"ratio_vs_decode\": \(String(format: "%.3f", ratio)), "
            + "\"buffer_only_ns_per_frame\": \(Int(bufferOnly.nanosecondsPerFrame)), "
            + "\"allocs_per_frame\": \(String(format: "%.3f", allocations)), "
            + "\"accelerate\": \(ops[.accelerate] ?? 0), \"preemptive_expand\": \(ops[.preemptiveExpand] ?? 0), "
            + "\"expand\": \(ops[.expand] ?? 0)}")
}
for calls in [1, 160] {
    let (swift, libopus) = try measureManyDecoders(calls: calls, frames: calls == 1 ? 1500 : 20)
    print(
        String(
            format:
                "  Opus decode, %3d decoders in turn: OpusDecoder %6.0f ns/frame, libopus opus_decode %6.0f (ratio %.3f)",
            calls, swift, libopus, swift / libopus))
    json.append(
        "\"decode_\(calls)_decoders\": {\"opus_decoder_ns\": \(Int(swift)), \"opus_decode_ns\": \(Int(libopus))}")
}
print("RESULT_JSON {" + json.joined(separator: ", ") + "}")
