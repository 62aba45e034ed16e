// The jitter buffer's own input: one received audio packet, independent of the RTP layer's types.
import PolyCore

/// One received audio packet as the jitter buffer needs it (the RTP layer maps its packets into this).
/// On the per-packet path, `JitterBuffer.insert(payload:timestamp:ssrc:marker:arrival:at:)` takes the same fields
/// with the payload in place, saving this type's owned copy (an allocation per packet).
public struct JitterPacket: Sendable, Equatable {
    /// RTP sequence number (wraps at 2^16).
    public var sequence: UInt16
    /// RTP timestamp in samples of the codec clock (48 kHz for Opus; wraps at 2^32).
    public var timestamp: UInt32
    /// RTP synchronisation source; a change resets the buffer.
    public var ssrc: UInt32
    /// RTP marker bit: for audio, the first packet of a talkspurt after silence (DTX).
    public var marker: Bool
    /// The encoded payload (one Opus packet).
    public var payload: [UInt8]
    /// When the packet arrived (the caller's clock).
    public var arrival: Instant

    public init(sequence: UInt16, timestamp: UInt32, ssrc: UInt32, marker: Bool, payload: [UInt8], arrival: Instant) {
        self.sequence = sequence
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.marker = marker
        self.payload = payload
        self.arrival = arrival
    }
}
