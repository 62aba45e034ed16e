// What an agent asks of its call's media: the rate its audio is in, how hard the encoder works and whether
// playout may time-stretch.
// A bridge serves many calls on few cores, so agents that only echo or record ask for cheaper media.
import PolyAudio
import PolySession

/// Media settings an agent chooses for its call (applied by the bridge's media session).
public struct AgentMediaProfile: Sendable, Equatable {
    /// Opus complexity (0...10) of the agent's audio to the caller.
    public var encoderComplexity: Int
    /// The widest band the agent's audio is coded in (nil: fullband at the default 32 kbps).
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

    /// A server's profile for agents that send back what they got (echo): no playout time-stretch (the
    /// echo's delay is the caller's delay anyway); while the caller reports no loss, CELT at complexity 0,
    /// wideband (~20 µs per 20 ms frame); on a lossy path SILK with FEC at complexity 1, wideband (~75–100
    /// µs, against 372 µs for the client's complexity 9 fullband). Measured on the 2-core test machine
    /// (libopus 1.3.1, 48 kHz in, 32 kbps); PESQ-WB and STOI look at wideband only.
    /// Both modes code wideband, so the audio is at 16 kHz: above 8 kHz nothing would reach the caller anyway,
    /// and the decoder skips its resampling to 48 kHz (a SILK wideband frame: ~19 instead of ~33 µs; the CELT
    /// encoder gains less, ~24 instead of ~26 µs, as it still analyses at 48 kHz).
    public static let server = AgentMediaProfile(
        encoderComplexity: 1, encoderMaxBandwidth: .wideband, timeStretch: false, cleanPathCoding: .celtWideband,
        sampleRate: 16_000)
}
