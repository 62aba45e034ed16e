// The loopback's Opus decoder, which only looks for in-band FEC when the sender was told to add it.
import PolyAudio
import PolyMedia

/// `OpusDecoder` for the jitter buffer, with FEC use tied to the encoder's setting (as SDP's `useinbandfec`
/// tells a real receiver). Without it, libopus 1.3 "recovers" from a SILK packet that has no FEC data by
/// concealing, and the jitter buffer would count that as an FEC recovery.
struct LoopbackDecoder: PlayoutDecoder {
    var opus: OpusDecoder
    let inbandFEC: Bool

    mutating func decode(_ packet: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<Int16>) throws
        -> Int
    { try opus.decode(packet, into: output) }

    mutating func decodeAhead(_ packet: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<Int16>)
        throws -> Int
    { try opus.decodeAhead(packet, into: output) }

    mutating func conceal(into output: UnsafeMutableBufferPointer<Int16>) throws -> Int {
        try opus.conceal(into: output)
    }

    mutating func decodeFEC(from nextPacket: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<Int16>)
        throws -> Int
    { try opus.decodeFEC(from: nextPacket, into: output) }

    func carriesFEC(_ packet: UnsafeBufferPointer<UInt8>) -> Bool { inbandFEC && opus.carriesFEC(packet) }

    mutating func reset() { opus.reset() }
}
