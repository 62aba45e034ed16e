// Opus encoder: a thin, allocation-free wrapper around libopus's OpusEncoder.
import COpus

/// Encodes fixed-size frames of interleaved Int16 PCM into Opus packets.
///
/// Thread safety: `@unchecked Sendable` so it can be handed to the thread that runs the media
/// pipeline, but it is **not** internally synchronized — use it from one thread at a time.
public final class OpusEncoder: @unchecked Sendable {
    /// The settings in force (updated by the `set…` methods).
    public private(set) var settings: OpusEncoderSettings
    /// Samples per channel in one frame (e.g. 960 for 20 ms at 48 kHz).
    public let frameSamples: Int
    /// Largest packet worth reserving room for (libopus recommends 4000 bytes).
    public static let maxPacketBytes = 4000

    private let state: OpaquePointer
    private let frameSize: Int32
    private let interleavedSamples: Int

    /// Creates an encoder; throws `OpusError` for settings libopus would reject.
    public init(_ settings: OpusEncoderSettings) throws(OpusError) {
        try settings.validate()
        var error: Int32 = OPUS_OK
        guard
            let state = opus_encoder_create(
                Int32(settings.sampleRate), Int32(settings.channels), settings.application.rawValue, &error),
            error == OPUS_OK
        else { throw OpusError(code: error == OPUS_OK ? OPUS_ALLOC_FAIL : error, context: "creating encoder") }
        self.state = state
        self.settings = settings
        self.frameSamples = settings.frameSamples
        self.frameSize = Int32(settings.frameSamples)
        self.interleavedSamples = settings.frameSamples * settings.channels
        do {
            try Self.apply(settings, to: state)
        } catch {
            opus_encoder_destroy(state)
            throw error
        }
    }

    private static func apply(_ settings: OpusEncoderSettings, to state: OpaquePointer) throws(OpusError) {
        _ = try checkOpus(pv_opus_set_bitrate(state, Int32(settings.bitrate)), "bitrate")
        _ = try checkOpus(pv_opus_set_vbr(state, settings.vbr ? 1 : 0), "vbr")
        _ = try checkOpus(pv_opus_set_complexity(state, Int32(settings.complexity)), "complexity")
        _ = try checkOpus(
            pv_opus_set_max_bandwidth(state, settings.maxBandwidth?.rawValue ?? OPUS_BANDWIDTH_FULLBAND),
            "maxBandwidth")
        _ = try checkOpus(pv_opus_set_inband_fec(state, settings.inbandFEC ? 1 : 0), "inbandFEC")
        _ = try checkOpus(pv_opus_set_packet_loss_perc(state, Int32(settings.packetLossPercent)), "packetLoss")
        _ = try checkOpus(pv_opus_set_dtx(state, settings.dtx ? 1 : 0), "dtx")
    }

    /// Becomes a new encoder with `settings` (application included), in the memory it already has: the state
    /// is initialised afresh, as `init` does, so what follows codes exactly as a new encoder would. One call
    /// switching between two coding modes keeps one encoder this way instead of two (43.5 KB each).
    /// The rate, channels and frame size must stay; `setForceMono` stays in force.
    public func reconfigure(_ settings: OpusEncoderSettings) throws(OpusError) {
        try settings.validate()
        guard settings.sampleRate == self.settings.sampleRate, settings.channels == self.settings.channels,
            settings.frameSamples == frameSamples
        else { throw .badArgument("reconfigure keeps the sample rate, channels and frame size") }
        _ = try checkOpus(
            opus_encoder_init(
                state, Int32(settings.sampleRate), Int32(settings.channels), settings.application.rawValue),
            "reinitialising encoder")
        try Self.apply(settings, to: state)
        if forcesMono { setForceMono(true) }
        self.settings = settings
    }

    deinit { opus_encoder_destroy(state) }

    /// Encodes one frame (`frameSamples * channels` interleaved samples) into `output`.
    ///
    /// Returns the packet length in bytes (1–2 bytes means DTX silence: nothing worth sending).
    /// No allocation: the hot path of the send pipeline.
    public func encode(_ pcm: UnsafeBufferPointer<Int16>, into output: UnsafeMutableBufferPointer<UInt8>)
        throws(OpusError) -> Int
    {
        guard pcm.count == interleavedSamples, let input = pcm.baseAddress else {
            throw .badArgument("encode needs \(interleavedSamples) samples per frame, got \(pcm.count)")
        }
        guard let out = output.baseAddress, !output.isEmpty else { throw .badArgument("empty output buffer") }
        let length = opus_encode(state, input, frameSize, out, Int32(clamping: output.count))
        return try checkOpus(length, "encode")
    }

    /// Encodes one frame into a new array (convenience; allocates).
    public func encode(_ pcm: [Int16]) throws(OpusError) -> [UInt8] {
        var packet = [UInt8](repeating: 0, count: Self.maxPacketBytes)
        let length = try pcm.withUnsafeBufferPointer { (input) throws(OpusError) -> Int in
            try packet.withUnsafeMutableBufferPointer { (output) throws(OpusError) -> Int in
                try encode(input, into: output)
            }
        }
        packet.removeSubrange(length...)
        return packet
    }

    /// Changes the target bitrate (bit/s, 6000...510000) from the next frame on.
    public func setBitrate(_ bitrate: Int) throws(OpusError) {
        guard OpusEncoderSettings.bitrateRange.contains(bitrate) else {
            throw .badArgument("bitrate must be 6000...510000 bit/s, not \(bitrate)")
        }
        _ = try checkOpus(pv_opus_set_bitrate(state, Int32(bitrate)), "bitrate")
        settings.bitrate = bitrate
    }

    /// Changes the complexity (0...10) from the next frame on.
    public func setComplexity(_ complexity: Int) throws(OpusError) {
        guard (0...10).contains(complexity) else { throw .badArgument("complexity must be 0...10, not \(complexity)") }
        _ = try checkOpus(pv_opus_set_complexity(state, Int32(complexity)), "complexity")
        settings.complexity = complexity
    }

    /// Tells the encoder the expected loss (0...100 %); with FEC on this sets the redundancy spent.
    public func setPacketLossPercent(_ percent: Int) throws(OpusError) {
        guard (0...100).contains(percent) else {
            throw .badArgument("packetLossPercent must be 0...100, not \(percent)")
        }
        _ = try checkOpus(pv_opus_set_packet_loss_perc(state, Int32(percent)), "packetLoss")
        settings.packetLossPercent = percent
    }

    /// Turns in-band FEC on or off (inert while the packet-loss percentage is 0).
    public func setInbandFEC(_ enabled: Bool) {
        let result = pv_opus_set_inband_fec(state, enabled ? 1 : 0)
        assert(result == OPUS_OK, "OPUS_SET_INBAND_FEC rejected a Bool")
        settings.inbandFEC = enabled
    }

    /// Changes the widest band coded (nil: fullband, as the bitrate allows) from the next frame on.
    public func setMaxBandwidth(_ bandwidth: OpusBandwidth?) {
        let result = pv_opus_set_max_bandwidth(state, bandwidth?.rawValue ?? OPUS_BANDWIDTH_FULLBAND)
        assert(result == OPUS_OK, "OPUS_SET_MAX_BANDWIDTH rejected a known bandwidth")
        settings.maxBandwidth = bandwidth
    }

    /// A stereo encoder codes mono when `mono` (the far end asked for it); a mono encoder is mono anyway.
    public func setForceMono(_ mono: Bool) {
        let result = pv_opus_set_force_channels(state, mono ? 1 : OPUS_AUTO)
        assert(result == OPUS_OK, "OPUS_SET_FORCE_CHANNELS rejected 1 or OPUS_AUTO")
        forcesMono = mono
    }

    /// Whether `setForceMono(true)` is in force.
    public private(set) var forcesMono = false

    /// Turns discontinuous transmission on or off.
    public func setDTX(_ enabled: Bool) {
        let result = pv_opus_set_dtx(state, enabled ? 1 : 0)
        assert(result == OPUS_OK, "OPUS_SET_DTX rejected a Bool")
        settings.dtx = enabled
    }

    /// The encoder's delay in samples per channel at `settings.sampleRate` (312 at 48 kHz for VOIP).
    public var lookaheadSamples: Int {
        var value: Int32 = 0
        _ = pv_opus_get_lookahead(state, &value)
        return Int(value)
    }

    /// True while DTX is suppressing the signal (the last frame was coded as silence).
    public var isInDTX: Bool {
        var value: Int32 = 0
        _ = pv_opus_get_in_dtx(state, &value)
        return value != 0
    }

    /// Forgets all history (as after creation), keeping the settings.
    public func reset() { _ = pv_opus_encoder_reset(state) }
}
