// `BridgeLoad --soak SECONDS`: the soak benchmark (issue 19) with the ramp's generator and bridge child.
import Foundation
import PolyAudio
import PolyNet
import PolySession

func runSoakMode(
    seconds: String, options: [String: String], bridgePath: String, token: String, codec: CodecSettings,
    complexity: Int, timeStretch: Bool, makeSource: @escaping @Sendable (Int) -> any AudioFrameSource
) async throws {
    var settings = SoakSettings()
    guard let duration = Double(seconds), duration > 0 else { throw BenchError("--soak needs a duration in seconds") }
    settings.duration = duration
    if let calls = options["calls"].flatMap(Int.init) { settings.calls = calls }
    if let text = options["lifetime"] {
        let bounds = text.split(separator: "-").compactMap { Double($0) }
        guard bounds.count == 2, bounds[0] > 0, bounds[0] <= bounds[1] else {
            throw BenchError("--lifetime needs MIN-MAX seconds, e.g. 30-120")
        }
        settings.lifetime = bounds[0]...bounds[1]
    }
    if let sample = options["sample"].flatMap(Double.init) { settings.sampleEvery = sample }
    if let warmup = options["warmup"].flatMap(Double.init) { settings.warmup = warmup }
    if let seed = options["seed"].flatMap(UInt64.init) { settings.seed = seed }

    let logFile = FileManager.default.temporaryDirectory.appendingPathComponent("bridge-soak-\(getpid()).log").path
    let bridge = try BridgeProcess(executable: bridgePath, token: token, logFile: logFile)
    defer { bridge.stop() }
    let loops = try (0..<max(1, Int(options["client-loops"] ?? "1") ?? 1)).map { try EventLoop(name: "soak-\($0)") }
    let generator = LoadGenerator(
        baseURL: URL(string: "http://127.0.0.1:\(bridge.port)/")!, token: token, codec: codec,
        encoderComplexity: complexity, timeStretch: timeStretch, makeSource: makeSource, loops: loops, keepFirst: false)
    print(
        "BridgeLoad soak: bridge pid \(bridge.pid) on 127.0.0.1:\(bridge.port); \(settings.calls) concurrent echo "
            + "calls lasting \(fmt(settings.lifetime.lowerBound))–\(fmt(settings.lifetime.upperBound)) s (seed "
            + "\(settings.seed)), replaced as they end, for \(fmt(settings.duration)) s; a sample every "
            + "\(fmt(settings.sampleEvery)) s, slopes after \(fmt(settings.warmup)) s; load average \(loadAverage())")
    fflush(nil)
    var summary = try await SoakRun(settings: settings, generator: generator, bridge: bridge, loops: loops).run()
    summary.loadAverageEnd = loadAverage()
    print("")
    print(summary.report().joined(separator: "\n"))
    print("bridge log: \(logFile)")
    bridge.stop()
    print("RESULT_JSON " + summary.json())
}
