// What an agent asks of its call's media: the rate its audio is in, how hard the encoder works and whether
// playout may time-stretch.
// A bridge serves many calls on few cores, so agents that only echo or record ask for cheaper media.
import PolyAudio
import PolySession

/// Media settings an agent chooses for its call (applied by the bridge's media session).
public struct AgentMediaProfile: Sendable, Equatable {
    /// Opus complexity (0...10) of the agent's audio to the caller.
    public var encoderComplexity: Int
    /// The widest band the agent's audio is coded in (nil: the codec's default, wideband).
    public var encoderMaxBandwidth: OpusBandwidth?
    /// Whether playout of the caller's audio may time-stretch (accelerate / preemptive expand) to follow
    /// the network's delay. It needs a pitch search on every played frame, the costliest playout step;
    /// without it the buffer still conceals and flushes, only more abruptly (`maximumStretchRatio` 0).
    public var timeStretch: Bool
    /// A cheaper mode for frames sent while the caller reports no loss (`MediaEndpointConfiguration`).
    public var cleanPathCoding: CleanPathCoding?
    /// The rate of the agent's audio (an Opus rate): the call decodes the caller to it and encodes from it.
    public var sampleRate: Int

    public init(
        encoderComplexity: Int, encoderMaxBandwidth: OpusBandwidth? = nil, timeStretch: Bool,
        cleanPathCoding: CleanPathCoding? = nil, sampleRate: Int = AgentAudio.sampleRate
    ) {
        self.sampleRate = sampleRate
        self.encoderComplexity = encoderComplexity
        self.encoderMaxBandwidth = encoderMaxBandwidth
        self.timeStretch = timeStretch
        self.cleanPathCoding = cleanPathCoding
    }

    /// What a client uses for one call: libopus's default complexity 9, time-stretch on. Agents whose
    /// audio is the point of the call (play, script) keep this.
    public static let standard = AgentMediaProfile(encoderComplexity: 9, timeStretch: true)

    /// A server's profile for agents that send back what they got (echo): faithful echo (the caller hears its
    /// audio after one more Opus generation, not a degraded one) at a server's cost. No playout time-stretch
    /// (the echo's delay is the caller's delay anyway); while the caller reports no loss, CELT at complexity 0,
    /// wideband, 64 kbit/s (`CleanPathCoding.celtWideband`, ~38 µs per 20 ms frame; 3.95 PESQ-WB on the hardest
    /// voice after the caller's generation, where 32 kbit/s gave 2.80); on a lossy path SILK with FEC at
    /// complexity 1, wideband, at the codec's bitrate raised while FEC is on (64 kbit/s: ~100 µs, 4.04).
    /// Measured by Benchmarks/SenderEval `--echo` on the 2-core test machine (docs/SENDER.md).
    /// Both modes code wideband, so the audio is at 16 kHz: above 8 kHz nothing would reach the caller anyway,
    /// and the decoder skips its resampling to 48 kHz.
    public static let server = AgentMediaProfile(
        encoderComplexity: 1, encoderMaxBandwidth: .wideband, timeStretch: false, cleanPathCoding: .celtWideband,
        sampleRate: 16_000)

    /// The echo's clean-path coding before faithful echo (`--agent-profile economy`): as `.server`, but CELT at
    /// 32 kbit/s (2.80 PESQ-WB on the hardest voice after the caller's generation, ~29 µs per frame instead of
    /// ~38). The lossy path is the same.
    public static let economy = AgentMediaProfile(
        encoderComplexity: 1, encoderMaxBandwidth: .wideband, timeStretch: false,
        cleanPathCoding: CleanPathCoding(
            application: .restrictedLowDelay, complexity: 0, maxBandwidth: .wideband, bitrate: 32_000),
        sampleRate: 16_000)
}

/// Which media profile the echo agent uses (`polyvoice bridge --agent-profile`).
public enum EchoProfile: String, Sendable, Equatable, CaseIterable {
    /// Faithful echo: one extra Opus generation at full quality (`AgentMediaProfile.server`).
    case faithful
    /// The cheaper coding of earlier releases (`AgentMediaProfile.economy`).
    case economy

    public var mediaProfile: AgentMediaProfile {
        switch self {
        case .faithful: .server
        case .economy: .economy
        }
    }
}
