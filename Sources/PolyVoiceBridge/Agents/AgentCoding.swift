// The operator's choice of how every agent's audio is coded (`polyvoice bridge --agent-bitrate`,
// `--agent-bandwidth`, `--agent-loss-hint`), over what the agent's media profile picks: to test a client against a
// sender at another bitrate or band (a 96 kbit/s fullband one, as browsers and aiortc send) with the same agent, or
// to give every caller the same coding whatever its receiver reports.
import PolyAudio
import PolySession

/// Opus settings that override every agent's media profile; nil fields leave the profile's choice.
public struct AgentCoding: Sendable, Equatable {
    /// Target bitrate in bit/s (6000...510000) of every coding mode the agent's call uses.
    public var bitrate: Int?
    /// The widest band coded, in every coding mode.
    public var maxBandwidth: OpusBandwidth?
    /// The loss (0...100 %) the agent's encoder plans FEC for all call long, whatever the caller reports: the
    /// same coding for every caller (nil: the caller's receiver reports drive it).
    public var lossHintPercent: Int?

    public init(bitrate: Int? = nil, maxBandwidth: OpusBandwidth? = nil, lossHintPercent: Int? = nil) {
        self.bitrate = bitrate
        self.maxBandwidth = maxBandwidth
        self.lossHintPercent = lossHintPercent
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
        if let lossHintPercent {
            // Without reports the clean-path mode never starts: the main mode codes for this loss throughout.
            configuration.pinnedLossHintPercent = lossHintPercent
        }
    }
}
