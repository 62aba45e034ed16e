// What the encoder is set to during a call: `CodecSettings` as the far end's `a=fmtp` allows it, and the bitrate
// raised while in-band FEC is in use. Sans-IO: inputs are the settings, the far end's parameters and the loss
// hint; the endpoint applies what it returns.
//
// Measured (Benchmarks/SenderEval, docs/SENDER.md): FEC's redundancy is paid out of the bitrate, so at the same
// target a lossy call's speech gets fewer bits; a third more while the loss hint is above 0 gives that back.
import PolyAudio
import PolyNet

/// The encoder settings one call's sender uses now.
struct SenderCodecPolicy: Sendable, Equatable {
    /// The application's settings.
    let codec: CodecSettings
    /// The widest band our side allows (the server's per-agent choice when set, else `codec.maxBandwidth`).
    let localMaxBandwidth: OpusBandwidth?
    /// What the far end's SDP asked for (all nil until its description arrives).
    private(set) var remote = OpusFormatParameters()

    init(codec: CodecSettings, localMaxBandwidth: OpusBandwidth?) {
        self.codec = codec
        self.localMaxBandwidth = localMaxBandwidth
    }

    /// Takes the far end's Opus parameters (each offer or answer); returns true when a setting changed.
    mutating func takeRemote(_ parameters: OpusFormatParameters, lossPercent: Int) -> Bool {
        let before = (bitrate(lossPercent: lossPercent), maxBandwidth, forwardErrorCorrection, dtx, forceMono)
        remote = parameters
        return before != (bitrate(lossPercent: lossPercent), maxBandwidth, forwardErrorCorrection, dtx, forceMono)
    }

    /// The target at this loss hint: `codec.bitrate`, a third more while FEC spends bits (hint above 0 with FEC
    /// on, unless `codec.adaptiveBitrate` is off) up to `codec.maximumBitrate` (an explicit `bitrate` above that
    /// stays), never above the far end's `maxaveragebitrate`.
    func bitrate(lossPercent: Int) -> Int {
        var target = codec.bitrate
        if codec.adaptiveBitrate, forwardErrorCorrection, lossPercent > 0 {
            target = max(target, min(target + target / 3, codec.maximumBitrate))
        }
        return max(6000, min(target, remote.maxAverageBitrate ?? Int.max))
    }

    /// `bitrate` within the far end's `maxaveragebitrate`.
    func capped(_ bitrate: Int) -> Int { max(6000, min(bitrate, remote.maxAverageBitrate ?? Int.max)) }

    /// In-band FEC: what the application chose, off when the far end's decoder does not use it.
    var forwardErrorCorrection: Bool { codec.forwardErrorCorrection && remote.inbandFEC != false }

    /// DTX: the application's choice, or on when the far end prefers it (`usedtx=1`).
    var dtx: Bool { codec.discontinuousTransmission || remote.dtx == true }

    /// Mono when the far end asks for it (`stereo=0`) or the codec is mono anyway.
    var forceMono: Bool { codec.channels == 2 && remote.stereo == false }

    /// Our band limit narrowed to what the far end plays (`maxplaybackrate`).
    var maxBandwidth: OpusBandwidth? {
        guard let rate = remote.maxPlaybackRate else { return localMaxBandwidth }
        let played = Self.bandwidth(playbackRate: rate)
        guard let local = localMaxBandwidth else { return played }
        return Self.order(local) <= Self.order(played) ? local : played
    }

    /// The widest Opus band a playback rate carries (its Nyquist band).
    static func bandwidth(playbackRate: Int) -> OpusBandwidth {
        switch playbackRate {
        case ..<12_000: .narrowband
        case ..<16_000: .mediumband
        case ..<24_000: .wideband
        case ..<48_000: .superwideband
        default: .fullband
        }
    }

    private static func order(_ bandwidth: OpusBandwidth) -> Int {
        OpusBandwidth.allCases.firstIndex(of: bandwidth) ?? 0
    }
}
