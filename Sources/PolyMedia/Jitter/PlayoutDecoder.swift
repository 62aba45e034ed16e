// What the jitter buffer needs from an audio decoder: decode, look ahead, conceal (PLC) and in-band FEC.
import PolyAudio

/// An audio decoder the jitter buffer drives (Opus in production, a deterministic fake in tests).
///
/// All methods write 48 kHz mono Int16 samples into `output` and return how many they wrote.
/// `conceal` and `decodeFEC` produce exactly `output.count` samples (a multiple of 2.5 ms).
public protocol PlayoutDecoder {
    /// Decodes one packet.
    mutating func decode(_ packet: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<Int16>) throws
        -> Int
    /// Decodes `packet` as `decode` would now, leaving the decoder's state as it was (the audio after a gap, looked
    /// at before the gap is concealed).
    mutating func decodeAhead(_ packet: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<Int16>)
        throws -> Int
    /// Packet loss concealment for `output.count` samples.
    mutating func conceal(into output: UnsafeMutableBufferPointer<Int16>) throws -> Int
    /// Recovers the packet before `nextPacket` from the redundancy carried in `nextPacket`.
    mutating func decodeFEC(from nextPacket: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<Int16>)
        throws -> Int
    /// Whether `packet` carries in-band FEC for the packet before it.
    func carriesFEC(_ packet: UnsafeBufferPointer<UInt8>) -> Bool
    /// Forgets all decoder state (new stream).
    mutating func reset()
}

extension OpusDecoder: PlayoutDecoder {
    /// Whether the packet's SILK header bits say it carries LBRR data (SILK and hybrid frames only): a sender with
    /// FEC on codes it only after voice-active frames, and libopus conceals when asked for FEC that is not there.
    public func carriesFEC(_ packet: UnsafeBufferPointer<UInt8>) -> Bool { OpusPacketInspection.carriesLBRR(packet) }
}
