// Opus over a lossy channel, offline: encode, drop packets at a seeded rate, decode with FEC or PLC.
import PolyCore

/// What happened to the packets of one `OpusLossSimulation` run.
public struct OpusLossReport: Sendable, Equatable {
    public var packets = 0
    /// Bytes of all packets sent (lost ones included).
    public var bytes = 0
    public var lost = 0
    /// Lost packets rebuilt from the next packet's in-band FEC.
    public var recoveredByFEC = 0
    /// Lost packets replaced by concealment (PLC).
    public var concealed = 0
    /// Length of the coded audio.
    public var duration: Duration = .zero

    public init() {}

    /// Average bitrate of the packets sent, in kbit/s.
    public var kilobitsPerSecond: Double {
        duration > .zero ? Double(bytes * 8) / duration.inSeconds / 1000 : 0
    }
}

/// Runs audio through Opus and a random-loss channel, as `polyvoice codec` does.
public enum OpusLossSimulation {
    /// Codes `pcm` (interleaved, at `settings.sampleRate`), losing each packet with probability
    /// `lossPercent / 100` (drawn from `SeededRandom(seed:)`). A lost packet is rebuilt from the next
    /// packet's FEC when `settings.inbandFEC` is on and that packet arrived; otherwise concealed.
    ///
    /// The output is aligned with the input (the codec delay removed) and has the same length.
    public static func run(
        _ pcm: [Int16], settings: OpusEncoderSettings, lossPercent: Double, seed: UInt64
    ) throws(OpusError) -> (output: [Int16], report: OpusLossReport) {
        let encoder = try OpusEncoder(settings)
        let decoder = try OpusDecoder(sampleRate: settings.sampleRate, channels: settings.channels)
        let channels = settings.channels
        let frame = encoder.frameSamples * channels
        let delay = encoder.lookaheadSamples * channels
        // Pad with silence so the last input sample and the codec delay both come out.
        let frames = (pcm.count + delay + frame - 1) / frame
        var input = pcm
        input.append(contentsOf: repeatElement(0, count: frames * frame - pcm.count))

        var packets: [[UInt8]] = []
        for index in 0..<frames {
            packets.append(try encoder.encode(Array(input[(index * frame)..<((index + 1) * frame)])))
        }
        var random = SeededRandom(seed: seed)
        let arrived = packets.map { _ in random.unit() * 100 >= lossPercent }

        var report = OpusLossReport()
        report.packets = packets.count
        report.bytes = packets.reduce(0) { $0 + $1.count }
        report.duration = .nanoseconds(Int64(frames) * settings.frameDuration.totalNanoseconds)
        var output: [Int16] = []
        output.reserveCapacity(frames * frame)
        for index in packets.indices {
            if arrived[index] {
                output += try decoder.decode(packets[index])
            } else if settings.inbandFEC, index + 1 < packets.count, arrived[index + 1] {
                output += try decoder.decodeFEC(from: packets[index + 1], samples: encoder.frameSamples)
                report.recoveredByFEC += 1
            } else {
                output += try decoder.conceal(samples: encoder.frameSamples)
                report.concealed += 1
            }
        }
        report.lost = report.recoveredByFEC + report.concealed
        return (Array(output[delay..<(delay + pcm.count)]), report)
    }
}
