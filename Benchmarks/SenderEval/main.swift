// SenderEval: codes one voice through our Opus encoder wrapper (`PolyAudio.OpusEncoder`, the client's send path)
// over a grid of bitrate × bandwidth × complexity × loss, and writes what a receiver decodes (16 kHz, the rate
// PESQ-WB scores) for evaluate.py to score. In-band FEC is on with the loss hint set to the loss rate, as the
// endpoint's RTCP-driven hint converges to; a lost packet is rebuilt from the next one's FEC when that arrived,
// else concealed (libopus PLC).
//
// Usage: SenderEval IN.wav OUTDIR [--bitrates 16000,24000,...] [--bandwidths wideband,fullband]
//                   [--complexities 5,9,10] [--losses 0,2,5,10] [--seeds 1,2]
//                   [--applications voip,celt] [--first-bitrate N]
// Writes OUTDIR/<kbps>-<bandwidth>-c<complexity>-l<loss>-s<seed>.raw (Int16 LE, 16 kHz mono; with an application
// other than voip, `<application>-` in front) and prints one JSON line per coded stream: {"application",
// "bitrate", "bandwidth", "complexity", "loss", "kbps", "encode_us"} (encode_us: mean µs per 20 ms frame).
// `--first-bitrate N`: the bridge's echo (one more generation): the input is first coded fullband at N bit/s,
// complexity 9 (a WebRTC caller), decoded at 16 kHz as the echo agent gets it, and the grid codes that at 16 kHz
// (`AgentMediaProfile.sampleRate`); `celt` is `OpusApplication.restrictedLowDelay` (the echo's clean-path mode).
import Foundation
import PolyAudio
import PolyCore

struct Options {
    var input = ""
    var output = ""
    var bitrates = [16_000, 24_000, 32_000, 48_000, 64_000, 96_000]
    var bandwidths: [String] = ["wideband", "fullband"]
    var complexities = [5, 9, 10]
    var losses = [0, 2, 5, 10]
    var seeds: [UInt64] = [1, 2]
    var applications = ["voip"]
    var firstBitrate: Int?
}

func parse(_ arguments: [String]) -> Options {
    var options = Options()
    var positionals: [String] = []
    var index = 0
    func list(_ value: String) -> [Int] { value.split(separator: ",").compactMap { Int($0) } }
    while index < arguments.count {
        let argument = arguments[index]
        if argument.hasPrefix("--"), index + 1 < arguments.count {
            let value = arguments[index + 1]
            switch argument {
            case "--bitrates": options.bitrates = list(value)
            case "--bandwidths": options.bandwidths = value.split(separator: ",").map(String.init)
            case "--complexities": options.complexities = list(value)
            case "--losses": options.losses = list(value)
            case "--seeds": options.seeds = list(value).map { UInt64($0) }
            case "--applications": options.applications = value.split(separator: ",").map(String.init)
            case "--first-bitrate": options.firstBitrate = Int(value)
            default:
                FileHandle.standardError.write(Data("SenderEval: unknown option \(argument)\n".utf8))
                exit(2)
            }
            index += 2
        } else {
            positionals.append(argument)
            index += 1
        }
    }
    guard positionals.count == 2 else {
        FileHandle.standardError.write(Data("usage: SenderEval IN.wav OUTDIR [options]\n".utf8))
        exit(2)
    }
    options.input = positionals[0]
    options.output = positionals[1]
    return options
}

func bandwidth(_ name: String) -> OpusBandwidth? {
    switch name {
    case "wideband": .wideband
    case "superwideband": .superwideband
    case "fullband": .fullband
    default: nil
    }
}

func application(_ name: String) -> OpusApplication {
    switch name {
    case "celt": .restrictedLowDelay
    case "audio": .audio
    default: .voip
    }
}

/// Encodes every 20 ms frame of `pcm` (mono at `settings.sampleRate`, zero-padded to whole frames); also the
/// mean time per frame spent in `encode`, in µs.
func encode(_ pcm: [Int16], settings: OpusEncoderSettings) throws -> (packets: [[UInt8]], microseconds: Double) {
    let encoder = try OpusEncoder(settings)
    let frame = encoder.frameSamples
    let frames = (pcm.count + encoder.lookaheadSamples + frame - 1) / frame
    var input = pcm
    input.append(contentsOf: repeatElement(0, count: frames * frame - pcm.count))
    let slices = (0..<frames).map { Array(input[($0 * frame)..<(($0 + 1) * frame)]) }
    let clock = ContinuousClock()
    var packets: [[UInt8]] = []
    let elapsed = try clock.measure {
        packets = try slices.map { try encoder.encode($0) }
    }
    return (packets, Double(elapsed.totalNanoseconds) / 1000 / Double(max(1, frames)))
}

/// What a 16 kHz receiver plays: seeded random loss, FEC from the next packet when it arrived, else PLC.
func receive(_ packets: [[UInt8]], lossPercent: Int, seed: UInt64) throws -> [Int16] {
    let decoder = try OpusDecoder(sampleRate: 16_000, channels: 1)
    let frame = 320
    var random = SeededRandom(seed: seed)
    let arrived = packets.map { _ in random.unit() * 100 >= Double(lossPercent) }
    var output: [Int16] = []
    output.reserveCapacity(packets.count * frame)
    for index in packets.indices {
        if arrived[index] {
            output += try decoder.decode(packets[index])
        } else if index + 1 < packets.count, arrived[index + 1] {
            output += try decoder.decodeFEC(from: packets[index + 1], samples: frame)
        } else {
            output += try decoder.conceal(samples: frame)
        }
    }
    return output
}

let options = parse(Array(CommandLine.arguments.dropFirst()))
do {
    var pcm = try WAVFile.readPipelineSamples(from: URL(fileURLWithPath: options.input))
    var rate = 48_000
    if let first = options.firstBitrate {
        let caller = try encode(pcm, settings: OpusEncoderSettings(bitrate: first, complexity: 9)).packets
        pcm = try receive(caller, lossPercent: 0, seed: 0)
        rate = 16_000
    }
    try FileManager.default.createDirectory(atPath: options.output, withIntermediateDirectories: true)
    let seconds = Double(pcm.count) / Double(rate)
    for app in options.applications {
        for bitrate in options.bitrates {
            for band in options.bandwidths {
                for complexity in options.complexities {
                    for loss in options.losses {
                        let settings = OpusEncoderSettings(
                            sampleRate: rate, bitrate: bitrate, complexity: complexity, maxBandwidth: bandwidth(band),
                            inbandFEC: true, packetLossPercent: loss, application: application(app))
                        let (packets, microseconds) = try encode(pcm, settings: settings)
                        let kbps = Double(packets.reduce(0) { $0 + $1.count } * 8) / seconds / 1000
                        let prefix = app == "voip" ? "" : "\(app)-"
                        for seed in loss == 0 ? [0] : options.seeds {
                            let decoded = try receive(packets, lossPercent: loss, seed: seed)
                            let name = "\(prefix)\(bitrate / 1000)-\(band)-c\(complexity)-l\(loss)-s\(seed).raw"
                            let data = decoded.withUnsafeBufferPointer { Data(buffer: $0) }
                            try data.write(to: URL(fileURLWithPath: options.output).appendingPathComponent(name))
                        }
                        print(
                            "{\"application\": \"\(app)\", \"bitrate\": \(bitrate), \"bandwidth\": \"\(band)\", "
                                + "\"complexity\": \(complexity), \"loss\": \(loss), "
                                + "\"kbps\": \(String(format: "%.2f", kbps)), "
                                + "\"encode_us\": \(String(format: "%.1f", microseconds))}")
                    }
                }
            }
        }
    }
} catch {
    FileHandle.standardError.write(Data("SenderEval: \(error)\n".utf8))
    exit(1)
}
