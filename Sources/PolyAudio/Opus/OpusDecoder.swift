// Opus decoder: normal decode, loss concealment (PLC) and recovery from in-band FEC.
//
// Decodes through libopus's float API and converts to Int16 itself, with exactly the result of libopus's Int16
// `opus_decode`: that function is float decode + `opus_pcm_soft_clip` (normal decode only; PLC and FEC skip it) +
// rounding. The soft clip scans every frame although it changes nothing unless its memory is set or a sample
// exceeds ±1, so we keep the clip memory here and call it only then; the scan folds into the conversion pass.
import COpus

/// Decodes Opus packets into interleaved Int16 PCM.
///
/// Thread safety: `@unchecked Sendable` so it can be handed to the playout thread, but it is
/// **not** internally synchronized — use it from one thread at a time.
public final class OpusDecoder: @unchecked Sendable {
    public let sampleRate: Int
    public let channels: Int
    /// Samples per channel in the longest packet Opus allows (120 ms).
    public let maxFrameSamples: Int

    private let state: OpaquePointer
    /// A copy of `state` for `decodeAhead` (libopus's decoder state is position independent and may be copied).
    private let lookahead: UnsafeMutableRawPointer
    private let stateBytes: Int
    /// Float output of libopus, `maxFrameSamples × channels`.
    private let floatPCM: UnsafeMutablePointer<Float>
    /// `opus_pcm_soft_clip`'s memory per channel (libopus keeps it in the decoder for its Int16 decode).
    private let softClipMemory: UnsafeMutablePointer<Float>

    /// Creates a decoder; throws for a sample rate other than 8/12/16/24/48 kHz or channels ∉ {1, 2}.
    public init(sampleRate: Int = 48000, channels: Int = 1) throws(OpusError) {
        guard OpusEncoderSettings.supportedSampleRates.contains(sampleRate) else {
            throw .badArgument("sampleRate \(sampleRate) Hz is not one of 8000, 12000, 16000, 24000, 48000")
        }
        guard channels == 1 || channels == 2 else { throw .badArgument("channels must be 1 or 2, not \(channels)") }
        var error: Int32 = OPUS_OK
        guard let state = opus_decoder_create(Int32(sampleRate), Int32(channels), &error), error == OPUS_OK else {
            throw OpusError(code: error == OPUS_OK ? OPUS_ALLOC_FAIL : error, context: "creating decoder")
        }
        self.state = state
        stateBytes = Int(opus_decoder_get_size(Int32(channels)))
        lookahead = .allocate(byteCount: stateBytes, alignment: 16)
        self.sampleRate = sampleRate
        self.channels = channels
        self.maxFrameSamples = sampleRate * 120 / 1000
        floatPCM = .allocate(capacity: maxFrameSamples * channels)
        floatPCM.initialize(repeating: 0, count: maxFrameSamples * channels)
        softClipMemory = .allocate(capacity: 2)
        softClipMemory.initialize(repeating: 0, count: 2)
    }

    deinit {
        opus_decoder_destroy(state)
        lookahead.deallocate()
        floatPCM.deallocate()
        softClipMemory.deallocate()
    }

    /// Decodes `packet` into `pcm` (room for up to `pcm.count / channels` samples per channel).
    ///
    /// Returns the samples per channel written. Corrupt packets or too small a buffer throw.
    public func decode(_ packet: UnsafeBufferPointer<UInt8>, into pcm: UnsafeMutableBufferPointer<Int16>)
        throws(OpusError) -> Int
    {
        guard let data = packet.baseAddress, !packet.isEmpty else {
            throw .badArgument("empty packet (use conceal for a lost one)")
        }
        return try run(data, Int32(clamping: packet.count), pcm, fec: false, "decode")
    }

    /// Decodes `packet` as `decode` would now, on a copy of the state, leaving this decoder as it was: the audio
    /// after a gap, known before the gap is filled. Costs a copy of the state (18 KB mono) besides the decode.
    public func decodeAhead(_ packet: UnsafeBufferPointer<UInt8>, into pcm: UnsafeMutableBufferPointer<Int16>)
        throws(OpusError) -> Int
    {
        guard let data = packet.baseAddress, !packet.isEmpty else {
            throw .badArgument("empty packet (use conceal for a lost one)")
        }
        lookahead.copyMemory(from: UnsafeRawPointer(state), byteCount: stateBytes)
        let clipMemory = (softClipMemory[0], softClipMemory[1])
        defer { (softClipMemory[0], softClipMemory[1]) = clipMemory }
        return try run(
            data, Int32(clamping: packet.count), pcm, fec: false, "decode ahead", on: OpaquePointer(lookahead))
    }

    /// Packet-loss concealment: synthesizes exactly `pcm.count / channels` samples per channel
    /// (a multiple of 2.5 ms) to stand in for a lost packet. Returns that count.
    public func conceal(into pcm: UnsafeMutableBufferPointer<Int16>) throws(OpusError) -> Int {
        try run(nil, 0, pcm, fec: false, "conceal")
    }

    /// Recovers the frame lost *before* `nextPacket` from the in-band FEC data that `nextPacket`
    /// carries; fills exactly `pcm.count / channels` samples per channel (the lost frame's length).
    /// If `nextPacket` has no FEC data libopus conceals instead. Decode `nextPacket` itself next.
    public func decodeFEC(from nextPacket: UnsafeBufferPointer<UInt8>, into pcm: UnsafeMutableBufferPointer<Int16>)
        throws(OpusError) -> Int
    {
        guard let data = nextPacket.baseAddress, !nextPacket.isEmpty else {
            throw .badArgument("empty packet given for FEC")
        }
        return try run(data, Int32(clamping: nextPacket.count), pcm, fec: true, "decode FEC")
    }

    @inline(__always)
    private func run(
        _ data: UnsafePointer<UInt8>?, _ length: Int32, _ pcm: UnsafeMutableBufferPointer<Int16>, fec: Bool,
        _ what: StaticString, on decoder: OpaquePointer? = nil
    ) throws(OpusError) -> Int {
        let target = decoder ?? state
        var frameSize = pcm.count / channels
        guard let out = pcm.baseAddress, frameSize > 0 else {
            throw .badArgument("\(what): empty output buffer")
        }
        let normal = data != nil && !fec
        if normal, let data {
            // As opus_decode: decode no more than the packet holds (at most 120 ms, so it fits `floatPCM`).
            let packetSamples = opus_packet_get_nb_samples(data, length, Int32(sampleRate))
            guard packetSamples > 0 else { throw OpusError(code: OPUS_INVALID_PACKET, context: "\(what)") }
            frameSize = min(frameSize, Int(packetSamples))
        } else if frameSize > maxFrameSamples {
            // Longer than `floatPCM` holds: libopus's own Int16 path is the same here (PLC and FEC leave the
            // soft-clip memory alone).
            let result = opus_decode(target, data, length, out, Int32(clamping: frameSize), fec ? 1 : 0)
            return try checkOpus(result, "\(what)")
        }
        let result = opus_decode_float(target, data, length, floatPCM, Int32(frameSize), fec ? 1 : 0)
        let decoded = try checkOpus(result, "\(what)")
        let count = decoded * channels
        let withinRange = OpusSampleConversion.convert(floatPCM, into: out, count: count)
        if normal, !withinRange || softClipMemory[0] != 0 || softClipMemory[1] != 0 {
            opus_pcm_soft_clip(floatPCM, Int32(decoded), Int32(channels), softClipMemory)
            _ = OpusSampleConversion.convert(floatPCM, into: out, count: count)
        }
        return decoded
    }

    /// Decodes a packet into a new array (convenience; allocates).
    public func decode(_ packet: [UInt8]) throws(OpusError) -> [Int16] {
        try packet.withUnsafeBufferPointer { (input) throws(OpusError) -> [Int16] in
            try produce(maxFrameSamples) { (pcm) throws(OpusError) -> Int in try decode(input, into: pcm) }
        }
    }

    /// Conceals a lost packet of `samples` samples per channel (convenience; allocates).
    public func conceal(samples: Int) throws(OpusError) -> [Int16] {
        try produce(samples) { (pcm) throws(OpusError) -> Int in try conceal(into: pcm) }
    }

    /// Recovers a lost frame of `samples` samples per channel from `nextPacket` (convenience).
    public func decodeFEC(from nextPacket: [UInt8], samples: Int) throws(OpusError) -> [Int16] {
        try nextPacket.withUnsafeBufferPointer { (input) throws(OpusError) -> [Int16] in
            try produce(samples) { (pcm) throws(OpusError) -> Int in try decodeFEC(from: input, into: pcm) }
        }
    }

    private func produce(
        _ samples: Int, _ body: (UnsafeMutableBufferPointer<Int16>) throws(OpusError) -> Int
    ) throws(OpusError) -> [Int16] {
        guard samples > 0 else { throw .badArgument("sample count must be positive, not \(samples)") }
        var pcm = [Int16](repeating: 0, count: samples * channels)
        let written = try pcm.withUnsafeMutableBufferPointer { (buffer) throws(OpusError) -> Int in try body(buffer) }
        pcm.removeSubrange((written * channels)...)
        return pcm
    }

    /// Samples per channel (at 48 kHz) that `packet` decodes to, or nil if it is malformed.
    public static func packetSamples(_ packet: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let data = packet.baseAddress, !packet.isEmpty else { return nil }
        let count = opus_packet_get_nb_samples(data, Int32(clamping: packet.count), 48000)
        return count > 0 ? Int(count) : nil
    }

    /// Samples per channel (at 48 kHz) that `packet` decodes to, or nil if it is malformed.
    public static func packetSamples(_ packet: [UInt8]) -> Int? {
        packet.withUnsafeBufferPointer { packetSamples($0) }
    }

    /// Forgets all history (as after creation).
    public func reset() {
        _ = pv_opus_decoder_reset(state)
        softClipMemory.update(repeating: 0, count: 2)
    }
}
