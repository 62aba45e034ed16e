// BridgeLoad: N concurrent echo calls against `polyvoice bridge` (a child process on 127.0.0.1), ramped in
// steps; per step the bridge's CPU per call, packets each way, loss the server caused, and whether the
// load generator itself kept up. Ends with the largest N without server-caused loss.
//
// What the generator does (it shares the 2 cores with the bridge, so it is kept light): each call is the
// real client stack (BridgeClient REST, an EventsSocket, MediaTransport with full ICE, DTLS, SRTP), all
// calls on `--client-loops` event loops (default 1). Files in: the input (a 440 Hz tone or a WAV) is Opus
// encoded once at `--client-rate` (default 16 kHz), FEC off, and every call replays those payloads
// (`--client-encode live` runs one encoder per call instead, at `--client-complexity`, default 5). Files
// out: each call's playout, at `--client-rate` too (jitter buffer without time-stretch unless
// `--client-time-stretch on`), goes to a sink that counts frames and audible ones; `--output` keeps call 0's.
// The bridge runs as shipped: its event loops (one per core, POLYVOICE_EVENT_LOOPS overrides) and the echo
// agent's server media profile (16 kHz audio; no playout time-stretch; CELT at complexity 0, wideband, 64 kbit/s
// while the caller reports no loss, as on this loopback; SILK with FEC at complexity 1 on a lossy path);
// `--agent-profile economy|faithful` is passed to the bridge (economy: CELT at 32 kbit/s on the clean path).
//
// Server-caused loss = kernel drops on the bridge's UDP sockets (/proc/net/udp, it did not read in time)
// + bridge→client sequence gaps not explained by drops on the generator's sockets + packets the bridge's
// 20 ms clock owed but never sent (beyond 1 % or the reading uncertainty). The generator is "BEHIND" when
// it sent under 99 % of its packets, its sockets dropped, or its loop thread was over 90 % busy.
//
// On a shared machine, give the run its own scheduling group or other sessions' work decides the result:
//   setsid bash -c 'echo -15 > /proc/self/autogroup; exec nice -n -15 .build/release/BridgeLoad'
//
// Usage: BridgeLoad [--quick] [--steps 20,40,60,80,100,150,200,250,300] [--hold S] [--settle S] [--client-rate HZ]
//                   [--client-loops K] [--client-encode once|live] [--client-complexity N]
//                   [--client-time-stretch on|off] [--bridge PATH] [--agent-profile P]
//                   [--input WAV] [--output WAV] [--budget S]
// The defaults finish within 3 minutes (`make bench`); `--quick` is shorter still (5 s holds). The ramp stops
// at the first saturated step.
// The last line of the output is `RESULT_JSON {…}`: every step's figures and the maximum N without
// server-caused loss, for the report script.
//
// Soak (issue 19): BridgeLoad --soak SECONDS [--calls 100] [--lifetime 30-120] [--seed 1] [--sample 10]
//                  [--warmup 120] (and the client options above)
// `--calls` concurrent echo calls that churn (each lasts a seeded time in `--lifetime`, an ended call is replaced
// at once) for SECONDS; every `--sample` seconds both processes' RSS, descriptors, threads, CPU and frame-clock
// lag, and the interval's packets lost by cause. Reports the RSS slopes after `--warmup` (least squares, MB per
// hour), calls completed, loss by cause, the bridge's RSS at 0, half and all calls, and whether the bridge lets go
// of everything once all hang up (Soak/). `make bench` runs it for 10 minutes (scripts/bench.sh).
//
// One long client call (issue 19): BridgeLoad --client-call SECONDS [--period 20] [--sample 10] [--warmup 60]
//                  [--speech WAV] [--work DIR]
// One `polyvoice call` child (file audio: a speech segment every `--period` seconds, `--loop-input`; the echo
// agent) for SECONDS: its RSS, descriptors, threads and CPU, the jitter buffer's delay and the drift between its
// audio clock and the far end's RTP time over time, PESQ-WB of the echoed speech early and late, and how it
// ended (ClientCall/). Run from the repository root (scripts/make-speech.sh, scripts/quality.py, .venv).
import Foundation
import PolyAudio
import PolyCore
import PolyNet
import PolySession

signal(SIGPIPE, SIG_IGN)
OpenSSLExitCleanUp.disable()  // the client loops may still close DTLS sessions at `exit`
// Each call holds a UDP socket and an events WebSocket on both sides.
var limit = rlimit()
getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
limit.rlim_cur = limit.rlim_max
setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)

var options: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst()
while let name = arguments.popFirst() {
    if name == "--quick" {
        options["quick"] = "1"
        continue
    }
    guard name.hasPrefix("--"), let value = arguments.popFirst() else {
        FileHandle.standardError.write(Data("usage: see the header of Benchmarks/BridgeLoad/main.swift\n".utf8))
        exit(2)
    }
    options[String(name.dropFirst(2))] = value
}
let quick = options["quick"] != nil
let steps = (options["steps"] ?? (quick ? "20,40,60,80,100,150,200" : "20,40,60,80,100,150,200,250,300")).split(
    separator: ","
)
.compactMap { Int($0) }
let hold = Double(options["hold"] ?? (quick ? "5" : "8")) ?? 8
let settle = Double(options["settle"] ?? "2") ?? 2
let budget = Double(options["budget"] ?? (quick ? "150" : "170")) ?? 170
let clientLoopCount = Int(options["client-loops"] ?? "1") ?? 1
let encodeLive = options["client-encode"] == "live"
let clientComplexity = Int(options["client-complexity"] ?? "5") ?? 5
let clientTimeStretch = options["client-time-stretch"] == "on"
let bridgePath =
    options["bridge"]
    ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("polyvoice")
    .path

// The input: a WAV (mono 16-bit at an Opus rate, looped) or a 440 Hz tone at -12 dBFS.
var clientRate = Int(options["client-rate"] ?? "16000") ?? 16000
var input: [Int16]
if let path = options["input"] {
    let file = try WAVFile.read(from: URL(fileURLWithPath: path))
    guard file.layout.count == 1, case .int16(let samples) = file.samples else {
        throw BenchError("--input must be a mono 16-bit WAV")
    }
    clientRate = file.sampleRate
    input = samples
} else {
    input = (0..<clientRate).map { Int16(8000 * sin(2 * Double.pi * 440 * Double($0) / Double(clientRate))) }
}
// The generator's cheaper configuration: Opus at `clientRate` (16 kHz wideband by default: the encoder
// works on a third of the samples of 48 kHz), no in-band FEC. The bridge side is untouched (its echo profile).
let codec = CodecSettings(sampleRate: clientRate, forwardErrorCorrection: false)
try codec.validate()
guard input.count >= codec.samplesPerFrame else { throw BenchError("input shorter than one frame") }
let makeSource: @Sendable (Int) -> any AudioFrameSource
if encodeLive {
    let samples = input
    makeSource = { index in LoopingSource(samples: samples, offset: index * 97) }
} else {
    let encoded = try EncodedInput(samples: input, codec: codec, complexity: clientComplexity)
    makeSource = { index in EncodedLoopSource(input: encoded, offset: index * 7) }
}

let token = "bridge-load-token-0123456789"
if let seconds = options["client-call"] {
    try await runClientCallMode(seconds: seconds, options: options, bridgePath: bridgePath, token: token)
    exit(0)
}
if let soak = options["soak"] {
    try await runSoakMode(
        seconds: soak, options: options, bridgePath: bridgePath, token: token, codec: codec,
        complexity: clientComplexity, timeStretch: clientTimeStretch, makeSource: makeSource)
    exit(0)
}
// What a call's codec work costs here, measured before the bridge starts (see CostModel).
let costModel = try CostModel.measure(
    payloads: try EncodedInput(samples: input, codec: codec, complexity: clientComplexity))
let logFile = FileManager.default.temporaryDirectory.appendingPathComponent("bridge-load-\(getpid()).log").path
let bridge = try BridgeProcess(
    executable: bridgePath, token: token, logFile: logFile, agentProfile: options["agent-profile"])
defer { bridge.stop() }
let baseURL = URL(string: "http://127.0.0.1:\(bridge.port)/")!
let loops = try (0..<max(1, clientLoopCount)).map { try EventLoop(name: "load-\($0)") }
let started = Instant.now()

print(
    "BridgeLoad: bridge pid \(bridge.pid) on 127.0.0.1:\(bridge.port), \(ProcessInfo.processInfo.activeProcessorCount) cores"
)
print(
    "client: \(clientLoopCount) event loop(s), Opus \(clientRate) Hz mono 20 ms 32 kbps VBR, FEC off, complexity "
        + "\(clientComplexity), \(encodeLive ? "encoded live per call" : "input encoded once and replayed"), "
        + "playout at \(clientRate) Hz, time-stretch \(clientTimeStretch ? "on" : "off"), input "
        + "\(options["input"] ?? "440 Hz tone"); hold \(hold) s per step after \(settle) s settling")

print(
    "codec cost per echo call-second on the bridge (this machine, per-thread CPU): playout (jitter buffer + "
        + "Opus decode \(CostModel.rate / 1000) kHz) \(String(format: "%.2f", costModel.playoutMs)) ms, encode with the echo agent's "
        + "server profile \(String(format: "%.2f", costModel.encodeCleanPathMs)) ms on a clean path (CELT; economy "
        + "\(String(format: "%.2f", costModel.encodeCleanPathEconomyMs)) ms) and "
        + "\(String(format: "%.2f", costModel.encodeServerProfileMs)) ms on a lossy one (SILK + FEC) (client default "
        + "complexity 9 fullband: \(String(format: "%.2f", costModel.encodeClientDefaultMs)) ms) → at most "
        + "\(Int(costModel.codecBoundCallsPerCore)) calls per core for the codec alone")

let generator = LoadGenerator(
    baseURL: baseURL, token: token, codec: codec, encoderComplexity: clientComplexity, timeStretch: clientTimeStretch,
    makeSource: makeSource,
    loops: loops, keepFirst: options["output"] != nil)

var calls: [LoadCall] = []
var results: [StepResult] = []
print("")
print(
    "| N | setup s | srv CPU % | srv loop % | srv loop wait % | srv CPU ms/call-s | cli CPU % | cli loop % | machine busy cores | load1 "
        + "| expected pkts | cli sent | srv rx | c→s gaps | srv sock drops | srv tx | cli rx | s→c gaps | cli sock drops "
        + "| srv shortfall | concealed % | audible % | srv-caused loss % | generator |")
print("|" + String(repeating: "---|", count: 24))
fflush(nil)
for step in steps {
    if (Instant.now() - started).inSeconds + hold + settle + 15 > budget {
        print("(stopping: the \(Int(budget)) s budget would be exceeded)")
        break
    }
    let setupStart = Instant.now()
    let (added, failed) = await generator.rampUp(from: calls.count, to: step)
    calls += added
    let setup = (Instant.now() - setupStart).inSeconds
    if failed > 0 { print("  \(failed) of the calls up to \(step) failed to set up") }
    try await Task.sleep(for: .milliseconds(Int(settle * 1000)))
    let before = try await Snapshot.take(bridge: bridge, calls: calls)
    try await Task.sleep(for: .milliseconds(Int(hold * 1000)))
    let after = try await Snapshot.take(bridge: bridge, calls: calls)
    let r = StepResult(calls: calls.count, from: before, to: after)
    results.append(r)
    let seconds = r.seconds
    print(
        "| \(r.calls) | \(fmt(setup, 1)) | \(fmt(r.serverCPU / seconds * 100)) | \(fmt(r.serverLoop / seconds * 100)) "
            + "| \(fmt(r.serverLoopWait / seconds * 100)) "
            + "| \(fmt(r.serverCPU * 1000 / (Double(r.calls) * seconds), 3)) | \(fmt(r.clientCPU / seconds * 100)) "
            + "| \(fmt(r.clientLoop / seconds * 100)) | \(fmt(r.machineBusyCores, 2)) | \(fmt(r.load, 1)) "
            + "| \(fmt(r.expected)) | \(fmt(r.clientSent)) | \(fmt(r.serverReceived)) | \(fmt(r.serverLostGaps)) "
            + "| \(fmt(r.serverDrops)) | \(fmt(r.serverSent)) | \(fmt(r.clientReceived)) | \(fmt(r.clientLostGaps)) "
            + "| \(fmt(r.clientDrops)) | \(fmt(r.serverShortfall)) | \(fmt(r.concealedPercent, 2)) "
            + "| \(fmt(r.audiblePercent, 1)) | \(fmt(r.serverLossPercent, 3)) | \(r.clientBehind ? "BEHIND" : "ok") |")
    if r.quietCalls > 0 || r.uncertainty > 0.01 * r.expected {
        let rates = r.receiveRates
        print(
            "  (\(r.quietCalls) calls under 90 % of their packets; received per call min/median/max "
                + "\(fmt(rates.min))/\(fmt(rates.median))/\(fmt(rates.max)) pkt/s of 50; "
                + "reading timing uncertainty \(fmt(r.uncertainty)) packets)")
    }
    fflush(nil)
    // Past the knee both ends only get worse; stop early to keep the run short.
    if r.serverLossPercent > 5 || (r.clientBehind && r.clientSent < 0.8 * r.expected) {
        print("(stopping the ramp: saturated)")
        break
    }
}

let clean = results.filter { $0.serverCausedLoss == 0 }.map(\.calls).max() ?? 0
let cleanTrusted = results.filter { $0.serverCausedLoss == 0 && !$0.clientBehind }.map(\.calls).max() ?? 0
print("")
print("max N with zero server-caused loss: \(clean) (with the generator keeping up too: \(cleanTrusted)); target ≥ 200")
print("bridge log: \(logFile)")
let summary = RunSummary(
    steps: results, nproc: ProcessInfo.processInfo.activeProcessorCount, costModel: costModel)
print(
    "bridge CPU per call-second at the largest zero-loss step (with the generator keeping up if any): "
        + "\(summary.cpuMsPerCallSecond.map { fmt($0, 3) + " ms" } ?? "n/a")")

// Calls finish setting up in any order: the one that kept its audio is call 0, wherever it is.
if let output = options["output"], let first = calls.first(where: { $0.sink.keeps }) {
    try WAVFile(sampleRate: codec.sampleRate, layout: .mono, samples: .int16(first.sink.samples))
        .write(to: URL(fileURLWithPath: output))
    print("call 0's received audio: \(output)")
}
for call in calls { await call.close() }
bridge.stop()
print("RESULT_JSON " + summary.json())
