// `BridgeLoad --client-call SECONDS`: one long `polyvoice call` (file audio, looped; echo agent) against the
// bridge child (issue 19). Every `--sample` seconds the call's RSS, descriptors, threads and CPU; from its
// --json stats each second the jitter buffer's delay and the drift between its audio clock (samples played)
// and the far end's RTP time; at the end PESQ-WB of the echoed speech early and late, and how the call ended.
import Foundation
import PolyCore

func runClientCallMode(seconds: String, options: [String: String], bridgePath: String, token: String) async throws {
    guard let duration = Double(seconds), duration >= 60 else { throw BenchError("--client-call needs ≥ 60 seconds") }
    let sampleEvery = options["sample"].flatMap(Double.init) ?? 10
    let warmup = options["warmup"].flatMap(Double.init) ?? 60
    let periodSeconds = options["period"].flatMap(Double.init) ?? 20
    let work = URL(fileURLWithPath: options["work"] ?? "out/client-call", isDirectory: true)
    try? FileManager.default.removeItem(at: work)
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)

    // The speech: a WAV given, or espeak-ng's (scripts/make-speech.sh, run from the repository root).
    let speechFile = options["speech"].map { URL(fileURLWithPath: $0) } ?? work.appendingPathComponent("speech.wav")
    if options["speech"] == nil {
        try runTool(
            "/bin/bash",
            ["scripts/make-speech.sh", speechFile.path, "en-us", "The birch canoe slid on the smooth planks."])
    }
    let periods = try EchoPeriods(speechFile: speechFile, periodSeconds: periodSeconds)
    let input = work.appendingPathComponent("input.wav")
    let recording = work.appendingPathComponent("echo.wav")
    try periods.writeInput(to: input)

    let bridge = try BridgeProcess(
        executable: bridgePath, token: token, logFile: work.appendingPathComponent("bridge.log").path)
    defer { bridge.stop() }
    let call = try CallProcess(
        executable: bridgePath,
        arguments: [
            "--bridge", "http://127.0.0.1:\(bridge.port)/", "--input", input.path, "--loop-input", "--output",
            recording.path, "--duration", "\(Int(duration))",
        ], token: token, logFile: work.appendingPathComponent("call.log").path)
    print(
        "BridgeLoad client call: polyvoice call pid \(call.pid) for \(Int(duration)) s against bridge pid \(bridge.pid) "
            + "(echo); input \(String(format: "%.1f", Double(periods.speech.count) / 48_000)) s of speech every "
            + "\(Int(periodSeconds)) s, looped; a sample every \(Int(sampleEvery)) s; load average \(loadAverage())")
    print("| t s | call RSS MB | fds | threads | CPU % | bridge RSS MB | jitter delay ms | drift ms |")
    print("|---|---|---|---|---|---|---|---|")
    fflush(nil)

    var summary = ClientCallSummary(durationS: duration, warmupS: warmup, periodS: periodSeconds)
    let began = Instant.now()
    var previousCPU = ProcessCPU.read(pid: call.pid)
    var next = began + .milliseconds(Int64(sampleEvery * 1000))
    while call.process.isRunning {
        try await Task.sleep(for: .milliseconds(200))
        guard Instant.now() >= next, call.process.isRunning else { continue }
        next = next + .milliseconds(Int64(sampleEvery * 1000))
        let cpu = ProcessCPU.read(pid: call.pid)
        let sample = ClientCallSummary.Sample(
            t: (Instant.now() - began).inSeconds, call: ProcessResources.read(pid: call.pid),
            cpuPercent: cpu.since(previousCPU).total / sampleEvery * 100,
            bridgeRssMb: ProcessResources.read(pid: bridge.pid).residentBytes / 1_048_576, stats: call.stats,
            window: sampleEvery)
        previousCPU = cpu
        summary.samples.append(sample)
        print(sample.tableRow)
        fflush(nil)
    }
    await call.waitForExit()
    summary.exitCode = Int(call.process.terminationStatus)
    summary.result = call.summary?.result ?? "no summary line"

    // PESQ-WB of the echo, period by period.
    let complete = Int(duration / periodSeconds)
    summary.echo = try periods.score(
        recording: recording, periods: EchoPeriods.chosen(complete: complete), workDirectory: work,
        python: options["python"] ?? ".venv/bin/python", script: "scripts/quality.py")
    summary.finish(stats: call.stats)
    summary.loadAverageEnd = loadAverage()
    print("")
    print(summary.report().joined(separator: "\n"))
    print("logs and audio: \(work.path)")
    bridge.stop()
    print("RESULT_JSON " + summary.json())
}

/// Runs a tool to its end; throws if it fails.
func runTool(_ path: String, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw BenchError("\(arguments.first ?? path) failed") }
}
