// What an agent asks of its call's media: how hard the encoder works and whether playout may time-stretch.
// A bridge serves many calls on few cores, so agents that only echo or record ask for cheaper media.
import PolyAudio

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

    public init(encoderComplexity: Int, encoderMaxBandwidth: OpusBandwidth? = nil, timeStretch: Bool) {
        self.encoderComplexity = encoderComplexity
        self.encoderMaxBandwidth = encoderMaxBandwidth
        self.timeStretch = timeStretch
    }

    /// What a client uses for one call: libopus's default complexity 9, time-stretch on. Agents whose
    /// audio is the point of the call (play, script) keep this.
    public static let standard = AgentMediaProfile(encoderComplexity: 9, timeStretch: true)

    /// A server's profile for agents that send back what they got (echo): Opus complexity 1, wideband
    /// (SILK only), no playout time-stretch (the echo's delay is the caller's delay anyway). Measured on the
    /// 2-core test machine (libopus 1.3.1, 48 kHz in, 32 kbps): 100 µs per 20 ms frame against 372 µs for
    /// the client's complexity 9 fullband; PESQ-WB and STOI look at wideband only.
    public static let server = AgentMediaProfile(
        encoderComplexity: 1, encoderMaxBandwidth: .wideband, timeStretch: false)
}
