// CodecBench: Opus encode/decode speed (× realtime) through PolyAudio vs the same loops in C.
//
// Usage: CodecBench [rounds] [seconds]   (defaults: 15 rounds of 5 s of speech)
// Both sides code the same PCM with the same settings, interleaved round by round (order alternating)
// so machine noise hits both alike. Time is the thread's CPU time. Coding is deterministic, so each
// frame is the same work in every round: the headline figure sums, over frames, each frame's fastest
// round — robust against other processes on a shared machine. Ratio = Swift speed / C speed.
import COpusBench
import Foundation
import PolyAudio

let arguments = CommandLine.arguments.dropFirst()
let rounds = arguments.first.flatMap { Int($0) } ?? 15
let seconds = arguments.dropFirst().first.flatMap { Double($0) } ?? 5
let (pcm, source) = BenchInput.speech(seconds: seconds)
let frameSize = 960
let frames = pcm.count / frameSize
let audioSeconds = Double(frames * frameSize) / 48000
let maxPacket = 1500

struct Case {
    let name: String
    let config: copus_bench_config
}
let cases = [0, 5, 10].flatMap { complexity in
    [false, true].map { fec in
        Case(
            name: "complexity \(complexity), FEC \(fec ? "on " : "off")",
            config: copus_bench_config(
                sample_rate: 48000, channels: 1, frame_size: Int32(frameSize), bitrate: 32000,
                complexity: Int32(complexity), inband_fec: fec ? 1 : 0, packet_loss_percent: fec ? 10 : 0))
    }
}

/// The rounds of one measurement (implementation × operation × case).
struct Measurement {
    var totals: [Double] = []
    var fastestFrames = [Double](repeating: .infinity, count: frames)
    /// Sum over frames of each frame's fastest round.
    var best: Double { fastestFrames.reduce(0, +) }
    var median: Double { totals.sorted()[totals.count / 2] }
}
var measurements: [String: Measurement] = [:]
@MainActor func record(_ key: String, total: Double, frameSeconds: [Double]) {
    precondition(total >= 0, "\(key) failed")
    var measurement = measurements[key, default: Measurement()]
    measurement.totals.append(total)
    for index in 0..<frames {
        measurement.fastestFrames[index] = min(measurement.fastestFrames[index], frameSeconds[index])
    }
    measurements[key] = measurement
}

var cPackets = [UInt8](repeating: 0, count: frames * maxPacket)
var swiftPackets = [UInt8](repeating: 0, count: frames * maxPacket)
var cLengths = [Int32](repeating: 0, count: frames)
var swiftLengths = [Int32](repeating: 0, count: frames)
var decoded = [Int16](repeating: 0, count: frameSize)
var frameSeconds = [Double](repeating: 0, count: frames)
var identical = true

print("CodecBench: \(String(format: "%.1f", audioSeconds)) s of \(source), 48 kHz mono, 20 ms frames, 32 kbit/s VBR")
print("\(rounds) interleaved rounds per case; × realtime = audio time / thread CPU time (per-frame best rounds)\n")

try pcm.withUnsafeBufferPointer { input in
    for round in 0..<rounds {
        for item in cases {
            var config = item.config
            let order = round % 2 == 0 ? [true, false] : [false, true]
            for runC in order {
                if runC {
                    let total = copus_bench_encode(
                        &config, input.baseAddress, Int32(frames), &cPackets, Int32(maxPacket), &cLengths, &frameSeconds
                    )
                    record("C enc \(item.name)", total: total, frameSeconds: frameSeconds)
                } else {
                    let total = try swiftPackets.withUnsafeMutableBufferPointer { packets in
                        try swiftLengths.withUnsafeMutableBufferPointer { lengths in
                            try frameSeconds.withUnsafeMutableBufferPointer { times in
                                try SwiftLoops.encode(
                                    config, pcm: input, frames: frames, packets: packets, maxPacket: maxPacket,
                                    lengths: lengths, frameSeconds: times)
                            }
                        }
                    }
                    record("Swift enc \(item.name)", total: total, frameSeconds: frameSeconds)
                }
            }
            // The wrapper must produce the very same bitstream as libopus called directly.
            identical = identical && cLengths == swiftLengths && cPackets == swiftPackets
            for runC in order {
                if runC {
                    let total = copus_bench_decode(
                        &config, cPackets, Int32(maxPacket), cLengths, Int32(frames), &decoded, &frameSeconds)
                    record("C dec \(item.name)", total: total, frameSeconds: frameSeconds)
                } else {
                    let total = try cPackets.withUnsafeBufferPointer { packets in
                        try cLengths.withUnsafeBufferPointer { lengths in
                            try decoded.withUnsafeMutableBufferPointer { output in
                                try frameSeconds.withUnsafeMutableBufferPointer { times in
                                    try SwiftLoops.decode(
                                        config, packets: packets, maxPacket: maxPacket, lengths: lengths,
                                        frames: frames, pcm: output, frameSeconds: times)
                                }
                            }
                        }
                    }
                    record("Swift dec \(item.name)", total: total, frameSeconds: frameSeconds)
                }
            }
        }
    }
}

func column(_ text: String, _ width: Int) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }
func figure(_ value: Double) -> String { String(format: "%9.1f", value) }
print(
    [
        column("case", 22), "    C enc", "Swift enc", " ratio", "    C dec", "Swift dec", " ratio",
        " median-round ratios",
    ]
    .joined(separator: " "))
var worst = Double.infinity
var ratios: [String: Double] = [:]
for item in cases {
    var row = [column(item.name, 22)]
    var medians: [String] = []
    for operation in ["enc", "dec"] {
        let c = measurements["C \(operation) \(item.name)"]!
        let swift = measurements["Swift \(operation) \(item.name)"]!
        let ratio = c.best / swift.best
        worst = min(worst, ratio)
        ratios["\(operation) \(item.name.trimmingCharacters(in: .whitespaces))"] = ratio
        row += [figure(audioSeconds / c.best), figure(audioSeconds / swift.best), String(format: "%6.3f", ratio)]
        medians.append(String(format: "%.3f", c.median / swift.median))
    }
    print(row.joined(separator: " ") + "  enc " + medians[0] + ", dec " + medians[1])
}
print(
    "\nSwift/C speed ratio: worst \(String(format: "%.3f", worst)) (target ≥ 0.97: \(worst >= 0.97 ? "met" : "NOT met"))"
)
print("Swift and C bitstreams identical: \(identical ? "yes" : "NO")")
let result: [String: Any] = [
    "bench": "CodecBench", "worst_ratio": worst, "target_ratio": 0.97, "ratio_kind": "Swift speed / C speed",
    "bitstreams_identical": identical, "ratios": ratios, "audio_seconds": audioSeconds, "rounds": rounds,
]
print(
    "RESULT_JSON "
        + String(
            decoding: try JSONSerialization.data(
                withJSONObject: result, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self))
