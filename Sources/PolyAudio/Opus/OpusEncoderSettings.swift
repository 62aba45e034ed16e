// What an Opus encoder is configured with, validated before libopus sees it.
import COpus
import PolyCore

/// Opus coding mode (`OPUS_APPLICATION_*`).
public enum OpusApplication: Sendable, Equatable {
    /// Best for speech: the pipeline's choice.
    case voip
    /// Best for music and mixed content.
    case audio
    /// Lowest delay; disables the speech-optimized (SILK) modes.
    case restrictedLowDelay

    var rawValue: Int32 {
        switch self {
        case .voip: OPUS_APPLICATION_VOIP
        case .audio: OPUS_APPLICATION_AUDIO
        case .restrictedLowDelay: OPUS_APPLICATION_RESTRICTED_LOWDELAY
        }
    }
}

/// Upper limit of the coded audio bandwidth (`OPUS_BANDWIDTH_*`).
public enum OpusBandwidth: Sendable, Equatable, CaseIterable {
    case narrowband  // 4 kHz
    case mediumband  // 6 kHz
    case wideband  // 8 kHz
    case superwideband  // 12 kHz
    case fullband  // 20 kHz

    var rawValue: Int32 {
        switch self {
        case .narrowband: OPUS_BANDWIDTH_NARROWBAND
        case .mediumband: OPUS_BANDWIDTH_MEDIUMBAND
        case .wideband: OPUS_BANDWIDTH_WIDEBAND
        case .superwideband: OPUS_BANDWIDTH_SUPERWIDEBAND
        case .fullband: OPUS_BANDWIDTH_FULLBAND
        }
    }
}

/// Settings of an `OpusEncoder`. Defaults: 48 kHz mono, 20 ms frames, 32 kbit/s VBR, VOIP.
public struct OpusEncoderSettings: Sendable, Equatable {
    /// Sample rates libopus encodes natively.
    public static let supportedSampleRates: Set<Int> = [8000, 12000, 16000, 24000, 48000]
    /// Frame durations the pipeline allows, in milliseconds.
    public static let supportedFrameMilliseconds: Set<Int64> = [10, 20, 40, 60]

    /// Input sample rate in Hz: 8000, 12000, 16000, 24000 or 48000.
    public var sampleRate: Int
    /// 1 (mono) or 2 (stereo, interleaved).
    public var channels: Int
    /// 10, 20, 40 or 60 ms.
    public var frameDuration: Duration
    /// Target bitrate in bit/s, 6000...510000.
    public var bitrate: Int
    /// Variable bitrate (true) or constant (false).
    public var vbr: Bool
    /// CPU/quality trade-off, 0 (fastest) ... 10 (best).
    public var complexity: Int
    /// Upper limit of the coded bandwidth; nil lets libopus choose.
    public var maxBandwidth: OpusBandwidth?
    /// In-band forward error correction (LBRR). Inert unless `packetLossPercent` > 0.
    public var inbandFEC: Bool
    /// Expected packet loss, 0...100 %; drives how much redundancy FEC spends.
    public var packetLossPercent: Int
    /// Discontinuous transmission: near-empty packets during silence.
    public var dtx: Bool
    /// Coding mode.
    public var application: OpusApplication

    public init(
        sampleRate: Int = 48000, channels: Int = 1, frameDuration: Duration = .milliseconds(20),
        bitrate: Int = 32000, vbr: Bool = true, complexity: Int = 9, maxBandwidth: OpusBandwidth? = nil,
        inbandFEC: Bool = false, packetLossPercent: Int = 0, dtx: Bool = false, application: OpusApplication = .voip
    ) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.frameDuration = frameDuration
        self.bitrate = bitrate
        self.vbr = vbr
        self.complexity = complexity
        self.maxBandwidth = maxBandwidth
        self.inbandFEC = inbandFEC
        self.packetLossPercent = packetLossPercent
        self.dtx = dtx
        self.application = application
    }

    /// Samples per channel in one frame.
    public var frameSamples: Int { sampleRate * Int(frameDuration.totalNanoseconds / 1_000_000) / 1000 }

    /// Bitrates accepted by `validate()` and `OpusEncoder.setBitrate(_:)`.
    public static let bitrateRange = 6000...510_000

    /// Throws `OpusError` (`OPUS_BAD_ARG`) naming the first setting libopus would reject.
    public func validate() throws(OpusError) {
        guard Self.supportedSampleRates.contains(sampleRate) else {
            throw .badArgument("sampleRate \(sampleRate) Hz is not one of 8000, 12000, 16000, 24000, 48000")
        }
        guard channels == 1 || channels == 2 else { throw .badArgument("channels must be 1 or 2, not \(channels)") }
        let nanoseconds = frameDuration.totalNanoseconds
        guard nanoseconds % 1_000_000 == 0, Self.supportedFrameMilliseconds.contains(nanoseconds / 1_000_000) else {
            throw .badArgument("frameDuration must be 10, 20, 40 or 60 ms, not \(frameDuration)")
        }
        guard Self.bitrateRange.contains(bitrate) else {
            throw .badArgument("bitrate must be 6000...510000 bit/s, not \(bitrate)")
        }
        guard (0...10).contains(complexity) else {
            throw .badArgument("complexity must be 0...10, not \(complexity)")
        }
        guard (0...100).contains(packetLossPercent) else {
            throw .badArgument("packetLossPercent must be 0...100, not \(packetLossPercent)")
        }
    }
}
