// The operator's choice of how every agent's audio is coded (`polyvoice bridge --agent-bitrate`,
// `--agent-bandwidth`), over what the agent's media profile picks: to test a client against a sender at
// another bitrate or band (a 96 kbit/s fullband one, as browsers and aiortc send) with the same agent.
import PolyAudio
import PolySession

/// Opus settings that override every agent's media profile; nil fields leave the profile's choice.
public struct AgentCoding: Sendable, Equatable {
    /// Target bitrate in bit/s (6000...510000) of every coding mode the agent's call uses.
    public var bitrate: Int?
    /// The widest band coded, in every coding mode.
    public var maxBandwidth: OpusBandwidth?

    public init(bitrate: Int? = nil, maxBandwidth: OpusBandwidth? = nil) {
        self.bitrate = bitrate
        self.maxBandwidth = maxBandwidth
    }

    /// The bandwidths by the names the options take (`wideband`, `fullband`, …).
    public static func bandwidth(named name: String) -> OpusBandwidth? {
        OpusBandwidth.allCases.first { "\($0)" == name }
    }

    /// Those names, for messages.
    public static var bandwidthNames: String { OpusBandwidth.allCases.map { "\($0)" }.joined(separator: ", ") }

    /// Applies the override to a call's media configuration, after the agent's profile. The bitrate is the
    /// clean-path target: while the caller reports loss the main mode still adds FEC's third on top, up to a
    /// maximum raised to at least the bitrate (an explicit bitrate stays).
    func apply(to configuration: inout MediaEndpointConfiguration) {
        if let bitrate {
            configuration.codec.bitrate = bitrate
            configuration.codec.maximumBitrate = max(configuration.codec.maximumBitrate, bitrate)
            configuration.cleanPathCoding?.bitrate = bitrate
        }
        if let maxBandwidth {
            configuration.encoderMaxBandwidth = maxBandwidth
            configuration.cleanPathCoding?.maxBandwidth = maxBandwidth
        }
    }
}
