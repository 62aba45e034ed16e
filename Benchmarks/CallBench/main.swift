// CallBench: N sequential calls through the embedded reference bridge's echo agent (0 delay) on 127.0.0.1,
// placed by our PolyCall (public API, file audio) and, interleaved in the same run, by aiortc
// (Tests/Interop/aiortc_peer.py) as the caller of the same bridge. Measures call setup (provision → media
// connected), mouth-to-ear through the echo (chirps found by a matched filter; nothing subtracted), and
// PESQ-WB of echoed speech, clean and with 5% loss each way through an ImpairmentRelay in front of the
// bridge's media. Ends with one `RESULT_JSON {…}` line.
//
// Median PESQ over --speech-calls calls per scenario and caller.
// Usage: CallBench [--calls N] [--chirps N] [--speech-calls N] [--out DIR] [--seed N]
import Foundation
import InteropSupport
import PolyAudio
import PolyVoiceBridge
import PolyVoiceTesting

/// Command-line options.
struct Options {
    var calls = 10
    var chirps = 5
    var seed: UInt64 = 1
    var speechCalls = 2
    var out = "out/callbench"

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let name = rest.popFirst() {
            guard let value = rest.popFirst() else { throw BenchError("\(name) needs a value") }
            switch name {
            case "--calls": calls = try Self.positive(name, value)
            case "--chirps": chirps = try Self.positive(name, value)
            case "--speech-calls": speechCalls = try Self.positive(name, value)
            case "--seed": seed = UInt64(try Self.positive(name, value))
            case "--out": out = value
            default:
                throw BenchError(
                    "unknown option \(name); usage: \(Self.usage)")
            }
        }
    }

    static let usage = "CallBench [--calls N] [--chirps N] [--speech-calls N] [--out DIR] [--seed N]"

    static func positive(_ name: String, _ value: String) throws -> Int {
        guard let number = Int(value), number > 0 else { throw BenchError("\(name) needs a positive integer") }
        return number
    }
}

/// JSON null for a figure that could not be measured.
func figure(_ value: Double?) -> Any { value.map { $0 as Any } ?? NSNull() }

func run(_ options: Options) async throws -> [String: Any] {
    let calls = options.calls
    let chirps = options.chirps
    let seed = options.seed
    let token = "callbench-web-calling-token"
    let outDirectory = URL(fileURLWithPath: options.out, relativeTo: AiortcPeer.packageRoot)
    try FileManager.default.createDirectory(at: outDirectory, withIntermediateDirectories: true)
    let chirpFile = outDirectory.appendingPathComponent("chirps.wav")
    let chirpSamples = BenchSignals.chirpTrain(chirps: chirps)
    try BenchSignals.write(chirpSamples, to: chirpFile)
    let speech = try WAVFile.readPipelineSamples(from: SpeechFixtures().speech(.male))
    let speechFile = outDirectory.appendingPathComponent("speech-track.wav")
    let speechSamples = BenchSignals.speechTrack(speech)
    try BenchSignals.write(speechSamples, to: speechFile)
    let speechReference = outDirectory.appendingPathComponent("speech-reference.wav")
    try BenchSignals.write(speech, to: speechReference)
    let detector = ChirpDetector()
    let scorer = try QualityScorer(repositoryRoot: AiortcPeer.packageRoot)

    let clean = try BenchBridge(token: token, loss: nil, seed: seed)
    defer { clean.stop() }
    let peer = try AiortcPeer()
    let chirpDuration = Duration.seconds(Double(chirpSamples.count) / Double(BenchSignals.rate) + 1.5)

    // Warm-up (not counted): the first call pays for OpenSSL, libopus and aiortc's imports.
    _ = try await OwnCall.run(
        bridgePort: clean.port, token: token, input: chirpFile, output: outDirectory.appendingPathComponent("warm.wav"))
    _ = try await AiortcCall.run(
        peer: peer, bridgePort: clean.port, token: token, input: chirpFile, duration: .seconds(2),
        scratch: outDirectory, name: "aiortc-warm")

    var ownSetup: [Double] = []
    var aiortcSetup: [Double] = []
    var ownLatency: [Double] = []
    var aiortcLatency: [Double] = []
    var ownMissed = 0
    var aiortcMissed = 0
    var unanchored = 0
    for index in 0..<calls {
        let own = try await OwnCall.run(
            bridgePort: clean.port, token: token, input: chirpFile,
            output: outDirectory.appendingPathComponent("own-\(index).wav"))
        if let setup = own.setupMilliseconds { ownSetup.append(setup) }
        if own.inputStart == nil { unanchored += 1 }
        let (ownTimes, ownLost) = Measurements.mouthToEar(
            own, file: chirpSamples.count, chirps: chirps, detector: detector)
        ownLatency += ownTimes
        ownMissed += ownLost
        let theirs = try await AiortcCall.run(
            peer: peer, bridgePort: clean.port, token: token, input: chirpFile, duration: chirpDuration,
            scratch: outDirectory, name: "aiortc-\(index)")
        if let setup = theirs.setupMilliseconds { aiortcSetup.append(setup) }
        let (theirTimes, theirLost) = Measurements.mouthToEar(
            theirs, file: chirpSamples.count, chirps: chirps, detector: detector)
        aiortcLatency += theirTimes
        aiortcMissed += theirLost
        print(
            String(
                format: "call %d: ours setup %.1f ms, mouth-to-ear %@ | aiortc setup %.1f ms, mouth-to-ear %@",
                index + 1, own.setupMilliseconds ?? .nan,
                ownTimes.map { String(format: "%.0f", $0) }.joined(separator: "/"),
                theirs.setupMilliseconds ?? .nan, theirTimes.map { String(format: "%.0f", $0) }.joined(separator: "/")))
    }

    var result: [String: Any] = [
        "bench": "CallBench", "calls": calls, "chirps_per_call": chirps, "seed": seed,
        "own_setup_ms": ownSetup, "aiortc_setup_ms": aiortcSetup, "own_m2e_ms": ownLatency,
        "aiortc_m2e_ms": aiortcLatency, "own_m2e_missed": ownMissed, "aiortc_m2e_missed": aiortcMissed,
        "own_unanchored_calls": unanchored, "target_setup_ms": 100.0, "target_m2e_ms": 90.0,
        "loss_percent_each_way": BenchBridge.lossPercent, "speech_calls": options.speechCalls,
    ]
    let distributions: [(String, String, [Double])] = [
        ("own_setup", "our PolyCall setup (start → DTLS connected)", ownSetup),
        ("aiortc_setup", "aiortc setup (provision → connected)    ", aiortcSetup),
        ("own_m2e", "our mouth-to-ear through echo           ", ownLatency),
        ("aiortc_m2e", "aiortc mouth-to-ear through echo        ", aiortcLatency),
    ]
    print("\nCallBench: \(calls) calls each, echo agent (0 ms) on 127.0.0.1")
    for (key, label, values) in distributions {
        let distribution = Distribution(values: values)
        print("\(label): \(distribution.text)")
        result["\(key)_median_ms"] = figure(distribution.median)
        result["\(key)_p90_ms"] = figure(distribution.p90)
    }
    print("chirps not found: ours \(ownMissed), aiortc \(aiortcMissed); our calls without an anchor: \(unanchored)")
    if let ours = Distribution(values: ownSetup).median, let theirs = Distribution(values: aiortcSetup).median {
        result["setup_ratio_aiortc_over_own"] = theirs / ours
    }
    if let ours = Distribution(values: ownLatency).median, let theirs = Distribution(values: aiortcLatency).median {
        result["m2e_ratio_aiortc_over_own"] = theirs / ours
    }

    // Echoed speech, clean and through the lossy relay.
    let speechDuration = Duration.seconds(2 * Double(speechSamples.count) / Double(BenchSignals.rate) + 1)
    for scenario in ["clean", "loss5"] {
        let bridge: BenchBridge
        do {
            bridge =
                scenario == "clean" ? clean : try BenchBridge(token: token, loss: BenchBridge.lossPercent, seed: seed)
        } catch {
            print("\(scenario): not measured (\(error))")
            result["\(scenario)_missing"] = "\(error)"
            continue
        }
        defer { if bridge !== clean { bridge.stop() } }
        var scores: [String: [QualityScore]] = [:]
        var setups: [String: [Double]] = [:]
        for round in 0..<options.speechCalls {
            let own = try await OwnCall.run(
                bridgePort: bridge.port, token: token, input: speechFile,
                output: outDirectory.appendingPathComponent("own-speech-\(scenario)-\(round).wav"))
            let theirs = try await AiortcCall.run(
                peer: peer, bridgePort: bridge.port, token: token, input: speechFile, duration: speechDuration,
                scratch: outDirectory, name: "aiortc-speech-\(scenario)-\(round)")
            for (who, call) in [("own", own), ("aiortc", theirs)] {
                let key = "\(who)_\(scenario)"
                if let setup = call.setupMilliseconds { setups[key, default: []].append(setup) }
                guard let segment = Measurements.speechSegment(call, file: speechSamples.count, speech: speech.count)
                else {
                    print("\(key) round \(round + 1): no echoed speech to score")
                    continue
                }
                let degraded = outDirectory.appendingPathComponent("\(key)-\(round)-echoed.wav")
                try BenchSignals.write(segment, to: degraded)
                let score = try scorer.score(reference: speechReference, degraded: degraded, maxDelay: .seconds(1))
                scores[key, default: []].append(score)
                print(
                    String(
                        format: "%@ speech %d: PESQ-WB %.2f, STOI %.3f, delay %.0f ms, setup %.1f ms", key, round + 1,
                        score.pesqWideband, score.stoi, score.delayMilliseconds, call.setupMilliseconds ?? .nan))
            }
        }
        for who in ["own", "aiortc"] {
            let key = "\(who)_\(scenario)"
            let calls = scores[key] ?? []
            result["\(key)_pesq_wb"] = figure(Distribution(values: calls.map(\.pesqWideband)).median)
            result["\(key)_pesq_wb_all"] = calls.map(\.pesqWideband)
            result["\(key)_stoi"] = figure(Distribution(values: calls.map(\.stoi)).median)
            result["\(key)_speech_delay_ms"] = figure(Distribution(values: calls.map(\.delayMilliseconds)).median)
            result["\(key)_setup_ms"] = figure(Distribution(values: setups[key] ?? []).median)
        }
        if let counters = bridge.relayCounters { print("\(scenario) relay: \(counters)") }
    }
    await peer.quit()
    return result
}

do {
    let result = try await run(Options(Array(CommandLine.arguments.dropFirst())))
    let json = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys, .withoutEscapingSlashes])
    print("RESULT_JSON " + String(decoding: json, as: UTF8.self))
} catch {
    print("CallBench failed: \(error)")
    exit(1)
}
