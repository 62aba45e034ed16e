// What a local loopback (mic → Opus → simulated network → jitter buffer → speaker) is set up with.
import PolyAudio
import PolyMedia
import PolyNet

/// Settings of a `LoopbackPipeline`: the encoder, the simulated link and the jitter buffer.
public struct LoopbackConfiguration: Sendable, Equatable {
    /// Opus bitrate in bit/s (6000...510000).
    public var bitrate: Int
    /// In-band FEC: the encoder adds redundancy sized by the expected loss, the jitter buffer uses it.
    public var inbandFEC: Bool
    /// What the simulated network does to each packet (loss, bursts, delay, jitter, ...).
    public var impairment: LinkImpairment
    /// Seed of the network's random decisions: same seed, same losses and delays.
    public var seed: UInt64
    /// The jitter buffer's tunables (`frameSamples` is set to 960: the pipeline plays 20 ms per step).
    public var jitterBuffer: JitterBufferConfiguration

    public init(
        bitrate: Int = 32000, inbandFEC: Bool = true, impairment: LinkImpairment = .perfect, seed: UInt64 = 1,
        jitterBuffer: JitterBufferConfiguration = JitterBufferConfiguration()
    ) {
        self.bitrate = bitrate
        self.inbandFEC = inbandFEC
        self.impairment = impairment
        self.seed = seed
        self.jitterBuffer = jitterBuffer
        self.jitterBuffer.frameSamples = AudioFrameFormat.samplesPerFrame
    }

    /// The loss the encoder is told to expect, in percent: the link's mean loss (at least 1 with FEC,
    /// since libopus adds no redundancy at 0; at most 30, where more redundancy stops paying).
    public var lossHintPercent: Int {
        guard inbandFEC else { return 0 }
        let mean: Double
        switch impairment.loss {
        case .none: mean = 0
        case .uniform(let probability): mean = probability
        case .gilbertElliott(let channel): mean = channel.meanLoss
        }
        return min(30, max(1, Int((mean * 100).rounded(.up))))
    }

    /// The encoder settings this configuration implies (48 kHz mono, 20 ms, VOIP).
    public var encoderSettings: OpusEncoderSettings {
        OpusEncoderSettings(bitrate: bitrate, inbandFEC: inbandFEC, packetLossPercent: lossHintPercent)
    }
}
