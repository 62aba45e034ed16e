// `polyvoice jitter-sim`: trace-driven playout of real Opus speech through a jitter buffer, in virtual time.
import FoundationEssentials
import PolyAudio
import PolyMedia

extension Subcommand {
    static let jitterSim = Subcommand(
        name: "jitter-sim",
        summary: "Play speech through a jitter buffer along a packet arrival trace (offline)",
        help: """
            Usage: polyvoice jitter-sim --trace FILE.csv --input IN.wav --output OUT.wav
                                        [--buffer adaptive|fixed:MS|schedule:FILE.csv] [--json] [--timeline FILE.csv]
                   polyvoice jitter-sim --generate PROFILE [--seed N] [--seconds S] [--output FILE.csv]

            Encodes IN.wav with Opus (20 ms, 32 kbps, in-band FEC with the trace's loss rate as the hint), delivers
            each packet at its arrival time from the trace (CSV seq,send_ms,arrival_ms; empty arrival = lost),
            pulls 10 ms frames from the buffer in virtual time and writes what was played, from the first packet's
            send time on, to OUT.wav (48 kHz mono).

            --buffer adaptive     the adaptive jitter buffer (default)
            --buffer fixed:MS     a fixed MS playout delay with its clock set by the first packet to arrive
            --buffer schedule:F   replay another buffer's recorded decisions (CSV play_ms,seq; seq empty = PLC,
                                  z = silence) with the same Opus decoder
            --stall-limit MS      adaptive: how long concealment waits for a late packet before skipping it
            --fec-hold F          adaptive: extra delay after a loss, in packets, so FEC can recover the next one
            --stretch-ratio R     adaptive: most of the output time-scaling may add or remove (0 = off)
            --json                print one JSON object: mean_delay_ms and all jitter buffer statistics
            --timeline F          write per-10 ms time_ms,target_ms,level_ms,operation to F, and for the
                                  adaptive buffer the target's parts and the playout delay it is compared with
            --generate PROFILE    print a seeded trace: \(TraceProfile.allCases.map(\.rawValue).joined(separator: ", "))
            """,
        run: runJitterSim)
}

private func runJitterSim(_ arguments: [String]) throws -> Int32 {
    let args = try Arguments(
        arguments,
        valued: [
            "trace", "input", "output", "buffer", "timeline", "generate", "seed", "seconds", "stall-limit", "fec-hold",
            "stretch-ratio",
        ],
        flagNames: ["json"])
    if let profileName = args.string("generate") {
        guard let profile = TraceProfile(rawValue: profileName) else {
            throw UsageError("unknown profile '\(profileName)'")
        }
        let seed = try args.int("seed", in: 0...Int(Int32.max)) ?? 1
        let seconds = try args.double("seconds", in: 1...3600) ?? 20
        let trace = profile.generate(packets: Int(seconds * 50), seed: UInt64(seed))
        if let path = args.string("output") {
            try trace.csv.write(toFile: path, atomically: true, encoding: .utf8)
        } else {
            print(trace.csv, terminator: "")
        }
        return ExitCode.ok
    }
    guard let tracePath = args.string("trace"), let inputPath = args.string("input"),
        let outputPath = args.string("output")
    else { throw UsageError("needs --trace, --input and --output (or --generate)") }

    let trace = try ArrivalTrace(csv: String(contentsOfFile: tracePath, encoding: .utf8))
    let speech = try WAVFile.readPipelineSamples(from: URL(fileURLWithPath: inputPath))
    let packets = try PlayoutSimulation.encode(speech, lossPercent: Int((trace.lossRate * 100).rounded(.up)))
    let lastArrival = trace.entries.compactMap(\.arrivalMs).max() ?? 0
    let durationMs = max(Double(speech.count) / 48 + 1000, lastArrival - (trace.entries.first?.sendMs ?? 0) + 500)
    let decoder = try OpusDecoder(sampleRate: 48000, channels: 1)

    let result: PlayoutSimulationResult
    let mode = args.string("buffer") ?? "adaptive"
    if mode == "adaptive" {
        var configuration = JitterBufferConfiguration()
        if let stall = try args.int("stall-limit", in: 0...2000) { configuration.stallLimit = .milliseconds(stall) }
        if let hold = try args.double("fec-hold", in: 0...2) { configuration.fecHoldFraction = hold }
        if let ratio = try args.double("stretch-ratio", in: 0...1) { configuration.maximumStretchRatio = ratio }
        var buffer = JitterBuffer(decoder: decoder, configuration: configuration)
        result = PlayoutSimulation.run(packets: packets, trace: trace, buffer: &buffer, durationMs: durationMs)
    } else if mode.hasPrefix("fixed:"), let ms = Int(mode.dropFirst(6)), (0...2000).contains(ms) {
        var buffer = FixedDelayBuffer(decoder: decoder, delay: .milliseconds(ms))
        result = PlayoutSimulation.run(packets: packets, trace: trace, buffer: &buffer, durationMs: durationMs)
    } else if mode.hasPrefix("schedule:") {
        let schedule = try PlayoutSchedule(csv: String(contentsOfFile: String(mode.dropFirst(9)), encoding: .utf8))
        var scheduleDecoder = decoder
        result = schedule.play(packets: packets, trace: trace, decoder: &scheduleDecoder, durationMs: durationMs)
    } else {
        throw UsageError("--buffer must be adaptive, fixed:MS (0–2000) or schedule:FILE, not '\(mode)'")
    }

    try WAVFile(sampleRate: 48000, layout: .mono, samples: .int16(result.output))
        .write(to: URL(fileURLWithPath: outputPath))
    if let timelinePath = args.string("timeline") {
        var text =
            "time_ms,target_ms,level_ms,operation,spread_ms,headroom_ms,loss_hold_ms,floor_ms,playout_delay_ms,"
            + "start_floor_ms\n"
        for point in result.timeline {
            let parts = point.targetParts.map {
                "\($0.spreadMs),\($0.headroomMs),\($0.lossHoldMs),\($0.lateLossFloorMs),\($0.playoutDelayMs),"
                    + "\($0.startFloorMs)"
            }
            text += "\(point.timeMs),\(point.targetDelayMs),\(point.levelMs),\(point.operation),\(parts ?? ",,,,,")\n"
        }
        try text.write(toFile: timelinePath, atomically: true, encoding: .utf8)
    }
    if args.flag("json") { print(jitterJSON(result.statistics, lossRate: trace.lossRate)) }
    return ExitCode.ok
}

private func jitterJSON(_ s: JitterBufferStatistics, lossRate: Double) -> String {
    let fields: [(String, Any)] = [
        ("mean_delay_ms", s.meanDelayMilliseconds), ("mean_target_delay_ms", s.meanTargetDelayMilliseconds),
        ("trace_loss_rate", lossRate),
        ("jitterBufferDelay", s.jitterBufferDelay), ("jitterBufferTargetDelay", s.jitterBufferTargetDelay),
        ("jitterBufferEmittedCount", s.jitterBufferEmittedCount), ("concealedSamples", s.concealedSamples),
        ("silentConcealedSamples", s.silentConcealedSamples), ("concealmentEvents", s.concealmentEvents),
        ("insertedSamplesForDeceleration", s.insertedSamplesForDeceleration),
        ("removedSamplesForAcceleration", s.removedSamplesForAcceleration),
        ("totalSamplesReceived", s.totalSamplesReceived), ("fecPacketsReceived", s.fecPacketsReceived),
        ("fecPacketsRecovered", s.fecPacketsRecovered), ("packetsDiscarded", s.packetsDiscarded),
        ("interruptionCount", s.interruptionCount), ("totalInterruptionDuration", s.totalInterruptionDuration),
        ("bufferFlushes", s.bufferFlushes), ("latePackets", s.latePackets), ("lateRewinds", s.lateRewinds),
    ]
    let body = fields.map { name, value in
        let text = (value as? Double).map { String(cFormat: "%.6g", $0) } ?? "\(value)"
        return "\"\(name)\": \(text)"
    }
    return "{" + body.joined(separator: ", ") + "}"
}
