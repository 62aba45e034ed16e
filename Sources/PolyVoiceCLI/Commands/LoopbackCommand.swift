// `polyvoice loopback`: hear the codec, network and jitter buffer on this machine before a call.
import FoundationEssentials
import Glibc
import PolyAudio
import PolyConversation
import PolyCore
import PolyVoiceTesting

extension Subcommand {
    static let loopback = Subcommand(
        name: "loopback",
        summary: "Mic or file → Opus → simulated network → jitter buffer → speaker or file",
        help: """
            Usage: polyvoice loopback [--input default|DEVICE|FILE.wav] [--output default|DEVICE|FILE.wav]
                                      [--duration S] [--loss PCT] [--burst MS] [--jitter MS] [--delay MS]
                                      [--bitrate N] [--no-fec] [--seed N] [--json]

            Sends captured audio through the call's media path on this machine: Opus in 20 ms packets (with
            in-band FEC unless --no-fec), a simulated network with the given loss, delay and jitter, and the
            adaptive jitter buffer, then plays it. A path (containing a '/', ending in .wav, or an existing
            file) is a file; "null" or /dev/null is silence in and nothing out; "-" is a WAV stream on standard
            input or output (the statistics then go to standard error); anything else is a device:
            "default", an id or part of a name from 'polyvoice devices'.

            File to file runs in virtual time (seconds of audio in a fraction of a second) and scores the
            output against the input with PESQ/STOI when the project's Python venv has them. With a device,
            it runs in real time for --duration seconds with a live status line; Ctrl-C stops it early.
            Statistics are printed at the end: packets, lost, FEC recoveries, concealed share, mean delay.

            Options:
              --input X      Where the audio comes from (default: the default microphone)
              --output X     Where it is played (default: the default speaker)
              --duration S   Seconds to run (devices: default 10; files: default the whole input)
              --loss PCT     Packet loss in percent, 0-100 (default 0)
              --burst MS     Mean loss burst length in ms (bursty Gilbert-Elliott loss instead of random)
              --delay MS     One-way network delay in ms (default 0)
              --jitter MS    Standard deviation of the random extra delay in ms (default 0)
              --bitrate N    Opus bitrate in bit/s, 6000-510000 (default 32000)
              --no-fec       No in-band FEC (lost packets are only concealed)
              --seed N       Seed of the network's random decisions (default 1)
              --json         Print the statistics as one JSON object

            Examples:
              polyvoice loopback --loss 5 --jitter 20          # talk and listen to yourself through a poor network
              polyvoice loopback --input speech.wav --output out.wav --loss 10 --burst 60
              polyvoice loopback --input speech.wav --output default --delay 150

            Exit codes: 0 done, 1 file problem, 2 usage, 5 audio device problem.
            """,
        run: { arguments in try LoopbackCommand(arguments).run() })
}

private struct LoopbackCommand {
    let input: String
    let output: String
    private let inputEnd: AudioEndpointArgument
    private let outputEnd: AudioEndpointArgument
    /// Where the output is written when it is not a device (standard output is taken once, up front).
    private let outputFile: String?
    let duration: Double?
    let configuration: LoopbackConfiguration
    let json: Bool

    init(_ arguments: [String]) throws {
        let parsed = try Arguments(
            arguments, valued: ["input", "output", "duration", "loss", "burst", "jitter", "delay", "bitrate", "seed"],
            flagNames: ["no-fec", "json"])
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        input = parsed.string("input") ?? "default"
        output = parsed.string("output") ?? "default"
        guard !input.isEmpty, !output.isEmpty else { throw UsageError("--input and --output must not be empty") }
        duration = try parsed.double("duration", in: 0.02...86400)
        let impairment = try parsed.linkImpairment(maximumMilliseconds: 10000)
        configuration = LoopbackConfiguration(
            bitrate: try parsed.int("bitrate", in: OpusEncoderSettings.bitrateRange) ?? 32000,
            inbandFEC: !parsed.flag("no-fec"), impairment: impairment,
            seed: UInt64(try parsed.int("seed", in: 0...Int.max) ?? 1))
        json = parsed.flag("json")
        inputEnd = AudioEndpointArgument(input)
        outputEnd = AudioEndpointArgument(output)
        outputFile = try LoopbackEndpoint.outputFile(outputEnd)
    }

    func run() throws -> Int32 {
        if let inputFile = LoopbackEndpoint.inputFile(inputEnd), let outputFile {
            return try runFiles(from: inputFile, to: outputFile)
        }
        return try runRealTime()
    }

    /// File to file in virtual time, scored against the input when the quality tools are there.
    private func runFiles(from inputFile: String, to outputFile: String) throws -> Int32 {
        var samples = try WAVFile.readPipelineSamples(from: URL(fileURLWithPath: inputFile))
        if let duration { samples = Array(samples.prefix(Int(duration * 48000))) }
        let result = try LoopbackPipeline.process(samples, configuration: configuration)
        let outputURL = URL(fileURLWithPath: outputFile)
        try WAVFile(sampleRate: 48000, layout: .mono, samples: .int16(result.output)).write(to: outputURL)
        // Only a regular file can be read back and scored (not /dev/null or a pipe).
        let quality =
            outputEnd.isRegularFile ? LoopbackQuality.score(reference: samples, degraded: outputURL) : nil
        report(result.statistics, seconds: Double(samples.count) / 48000, mode: "virtual-time", quality: quality)
        return ExitCode.ok
    }

    /// Any device involved: real time, paced by the wall clock, stopped by --duration or Ctrl-C.
    private func runRealTime() throws -> Int32 {
        let source: any AudioFrameSource
        let sink: any AudioFrameSink
        do {
            source = try LoopbackEndpoint.source(inputEnd)
            sink = try LoopbackEndpoint.sink(outputEnd, file: outputFile)
        } catch let error as AudioDeviceError {
            printError("polyvoice loopback: \(error)\n" + LoopbackEndpoint.deviceListing())
            return ExitCode.media
        }
        defer {
            source.close()
            sink.close()
        }
        let seconds = duration ?? 10
        let statusLine = isatty(STDOUT_FILENO) == 1 && !json
        let runner = RealTimeLoop(configuration: configuration, source: source, sink: sink, seconds: seconds)
        var status: RealTimeLoop.Status?
        if statusLine { status = { Self.printStatus($0, elapsed: $1, total: $2) } }
        let statistics = try runner.run(status: status)
        if statusLine { print("") }
        report(statistics.stats, seconds: statistics.elapsed, mode: "real-time", quality: nil)
        return ExitCode.ok
    }

    private static func jsonValue(_ field: Any) -> JSONValue {
        switch field {
        case let number as Double: .number(number)
        case let count as Int: .number(Double(count))
        case let flag as Bool: .bool(flag)
        default: .string("\(field)")
        }
    }

    private static func printStatus(_ stats: LoopbackStatistics, elapsed: Double, total: Double) {
        let line = String(
            cFormat: "%5.1f/%.0f s  mic %6.1f dBFS  out %6.1f dBFS  lost %ld/%ld (%.1f%%)  fec %ld  delay %.0f ms",
            elapsed, total, stats.inputLevel.rmsDBFS, stats.outputLevel.rmsDBFS, stats.packetsLost, stats.packetsSent,
            stats.lossPercent, stats.fecRecovered, stats.meanDelayMilliseconds)
        StandardStream.output.write("\r\u{1B}[K" + line)
    }

    private func report(_ stats: LoopbackStatistics, seconds: Double, mode: String, quality: LoopbackQuality?) {
        var fields: [(String, Any)] = [
            ("mode", mode), ("input", input), ("output", output), ("seconds", seconds),
            ("packets", stats.packetsSent), ("lost", stats.packetsLost), ("loss_percent", stats.lossPercent),
            ("fec", configuration.inbandFEC), ("fec_recovered", stats.fecRecovered),
            ("concealed_percent", stats.concealedPercent), ("mean_delay_ms", stats.meanDelayMilliseconds),
            ("network_delay_ms", stats.meanNetworkDelayMilliseconds),
            ("buffer_delay_ms", stats.meanBufferDelayMilliseconds),
        ]
        switch quality {
        case .scored(let score): fields += [("pesq_wb", score.pesqWideband), ("stoi", score.stoi)]
        case .unavailable(let reason): fields.append(("quality_unavailable", reason))
        case nil: break
        }
        if json {
            print(JSONValue.object(fields.sorted { $0.0 < $1.0 }.map { ($0, Self.jsonValue($1)) }).text())
            return
        }
        for (name, value) in fields {
            let text = (value as? Double).map { String(cFormat: "%.2f", $0) } ?? "\(value)"
            print("\(name.replacing("_", with: "-")): \(text)")
        }
    }
}

/// PESQ/STOI of a file loopback, or why there are none.
private enum LoopbackQuality {
    case scored(QualityScore)
    case unavailable(String)

    /// Scores only when the project's venv exists; a missing venv or tool is not an error of the loopback.
    static func score(reference samples: [Int16], degraded: URL) -> LoopbackQuality? {
        guard let scorer = try? QualityScorer(),
            FileManager.default.isExecutableFile(
                atPath: scorer.repositoryRoot.appendingPathComponent(".venv/bin/python").path)
        else { return .unavailable("no Python venv with pesq (run scripts/setup.sh)") }
        let reference = FileManager.default.temporaryDirectory.appendingPathComponent(
            "polyvoice-loopback-\(getpid())-reference.wav")
        defer { try? FileManager.default.removeItem(at: reference) }
        do {
            try WAVFile(sampleRate: 48000, layout: .mono, samples: .int16(samples)).write(to: reference)
            return .scored(try scorer.score(reference: reference, degraded: degraded))
        } catch {
            return .unavailable("scoring failed: \(error)")
        }
    }
}
