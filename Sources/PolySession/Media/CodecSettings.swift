// Opus settings for the microphone stream, with voice-call defaults.
import PolyAudio

/// How the microphone is encoded. Defaults: 48 kHz mono, 20 ms frames, 48 kbps VBR coded wideband, in-band FEC
/// on (with a third more bitrate while loss is reported), DTX off. Chosen by measurement (Benchmarks/SenderEval,
/// docs/SENDER.md): wideband at 48 kbit/s scores 4.37 PESQ-WB on the hardest voice, fullband at 32 kbit/s 3.73.
/// The far end's `a=fmtp` can narrow these (`maxaveragebitrate`, `maxplaybackrate`, `useinbandfec=0`,
/// `stereo=0`) or ask for DTX (`usedtx=1`); it never widens them.
public struct CodecSettings: Hashable, Sendable {
    /// Encoder sample rate: 8000, 12000, 16000, 24000 or 48000 Hz (RTP always advertises opus/48000/2).
    public var sampleRate: Int
    /// 1 (mono) or 2 (stereo).
    public var channels: Int
    /// Frame length in milliseconds: 10, 20, 40 or 60.
    public var frameMilliseconds: Int
    /// Encoder complexity, 0...10. libopus's default 9 suits one call; lower values cost less CPU per frame
    /// at a small quality loss (5: about half the encoder's time, PESQ-WB up to 0.1 lower; docs/SENDER.md),
    /// for processes that encode many calls (a bridge's agents, a load test's callers).
    public var complexity: Int
    /// Target bitrate in bit/s (6000...510000) on a clean path.
    public var bitrate: Int
    /// Raise the target by a third while in-band FEC is in use (the far end reports loss), so FEC's redundancy
    /// does not starve the speech. False: `bitrate` always.
    public var adaptiveBitrate: Bool
    /// Upper bound of the target (6000...510000), also when the far end allows more.
    public var maximumBitrate: Int
    /// The widest band coded (nil: as the bitrate allows, fullband from about 24 kbit/s). Wideband carries
    /// speech to 8 kHz, all an agent's 16 kHz recogniser and PESQ-WB hear, and spends no bits above it.
    public var maxBandwidth: OpusBandwidth?
    /// Variable bitrate.
    public var variableBitrate: Bool
    /// Opus in-band forward error correction (the receiver recovers a lost frame from the next one).
    public var forwardErrorCorrection: Bool
    /// Discontinuous transmission: fewer packets during silence.
    public var discontinuousTransmission: Bool
    /// Loss the encoder plans FEC for at the start of a call, in percent (0...100; FEC needs it above 0).
    /// Used until the far end's first RTCP receiver report; from then on the reported loss drives it
    /// (smoothed, capped by `MediaEndpointConfiguration.maximumLossHintPercent`), so a clean path pays nothing.
    public var expectedLossPercent: Int

    public init(
        sampleRate: Int = 48_000, channels: Int = 1, frameMilliseconds: Int = 20, bitrate: Int = 48_000,
        variableBitrate: Bool = true, forwardErrorCorrection: Bool = true, discontinuousTransmission: Bool = false,
        expectedLossPercent: Int = 10, adaptiveBitrate: Bool = true, maximumBitrate: Int = 96_000,
        maxBandwidth: OpusBandwidth? = .wideband, complexity: Int = 9
    ) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.frameMilliseconds = frameMilliseconds
        self.complexity = complexity
        self.bitrate = bitrate
        self.adaptiveBitrate = adaptiveBitrate
        self.maximumBitrate = maximumBitrate
        self.maxBandwidth = maxBandwidth
        self.variableBitrate = variableBitrate
        self.forwardErrorCorrection = forwardErrorCorrection
        self.discontinuousTransmission = discontinuousTransmission
        self.expectedLossPercent = expectedLossPercent
    }

    /// Samples per channel in one frame.
    public var samplesPerFrame: Int { sampleRate * frameMilliseconds / 1000 }

    /// Throws `InvalidCodecSetting` naming the bad field ("codec.<name>").
    public func validate() throws(InvalidCodecSetting) {
        func check(_ ok: Bool, _ field: String, _ reason: String) throws(InvalidCodecSetting) {
            if !ok { throw InvalidCodecSetting(field: "codec.\(field)", reason: reason) }
        }
        try check([8_000, 12_000, 16_000, 24_000, 48_000].contains(sampleRate), "sampleRate", "must be an Opus rate")
        try check((1...2).contains(channels), "channels", "must be 1 or 2")
        try check([10, 20, 40, 60].contains(frameMilliseconds), "frameMilliseconds", "must be 10, 20, 40 or 60")
        try check((6_000...510_000).contains(bitrate), "bitrate", "must be in 6000...510000")
        try check((6_000...510_000).contains(maximumBitrate), "maximumBitrate", "must be in 6000...510000")
        try check((0...100).contains(expectedLossPercent), "expectedLossPercent", "must be in 0...100")
        try check((0...10).contains(complexity), "complexity", "must be in 0...10")
    }
}

/// A `CodecSettings` field out of range (the SDK reports it as `PolyError.invalidConfiguration`).
public struct InvalidCodecSetting: Error, Equatable, CustomStringConvertible {
    public var field: String
    public var reason: String

    public var description: String { "Invalid configuration: \(field) \(reason)" }
}
