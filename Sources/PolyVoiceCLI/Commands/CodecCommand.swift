// `polyvoice codec`: hear what Opus, packet loss, FEC and concealment do to a recording.
import FoundationEssentials
import PolyAudio

extension Subcommand {
    static let codec = Subcommand(
        name: "codec",
        summary: "Run a WAV file through Opus with simulated packet loss",
        help: """
            Usage: polyvoice codec IN.wav OUT.wav [--bitrate N] [--complexity N] [--fec] [--loss PCT] [--seed N]

            Encodes IN.wav (any rate, mono or stereo, 16-bit or float; converted to 48 kHz mono) with
            Opus in 20 ms packets, drops packets at random, decodes the rest and writes OUT.wav
            (48 kHz mono 16-bit, aligned with the input). A lost packet is rebuilt from the next
            packet's in-band FEC when --fec is given and that packet arrived; otherwise it is concealed.

            Options:
              --bitrate N     Opus bitrate in bit/s, 6000-510000 (default 32000)
              --complexity N  Encoder complexity 0-10 (default 9)
              --fec           In-band FEC; the encoder is told to expect --loss percent loss (at least 1)
              --loss PCT      Packet loss in percent, 0-100 (default 0)
              --seed N        Seed of the loss pattern (default 1): same seed, same losses

            Prints packets, bytes, kbps, lost, recovered-by-FEC and concealed.
            """,
        run: runCodec)
}

private func runCodec(_ arguments: [String]) throws -> Int32 {
    let parsed = try Arguments(arguments, valued: ["bitrate", "complexity", "loss", "seed"], flagNames: ["fec"])
    guard parsed.positionals.count == 2 else {
        throw UsageError("expected IN.wav and OUT.wav, got \(parsed.positionals.count) file argument(s)")
    }
    let loss = try parsed.double("loss", in: 0...100) ?? 0
    let fec = parsed.flag("fec")
    let settings = OpusEncoderSettings(
        bitrate: try parsed.int("bitrate", in: OpusEncoderSettings.bitrateRange) ?? 32000,
        complexity: try parsed.int("complexity", in: 0...10) ?? 9,
        inbandFEC: fec,
        packetLossPercent: fec ? max(1, Int(loss.rounded(.up))) : 0)
    let seed = UInt64(try parsed.int("seed", in: 0...Int.max) ?? 1)

    let input = URL(fileURLWithPath: parsed.positionals[0])
    let output = URL(fileURLWithPath: parsed.positionals[1])
    let pcm = try WAVFile.readPipelineSamples(from: input)
    let (decoded, report) = try OpusLossSimulation.run(pcm, settings: settings, lossPercent: loss, seed: seed)
    try WAVFile(PCMFrame(samples: decoded, sampleRate: 48000)).write(to: output)

    print("packets: \(report.packets)")
    print("bytes: \(report.bytes)")
    print("kbps: \(String(cFormat: "%.1f", report.kilobitsPerSecond))")
    print("lost: \(report.lost)")
    print("recovered-by-FEC: \(report.recoveredByFEC)")
    print("concealed: \(report.concealed)")
    return ExitCode.ok
}
