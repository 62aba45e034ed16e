// What a receiver can read from an Opus packet without decoding it (RFC 6716): where its first frame is and
// whether that frame carries in-band FEC. A receiver asks before decoding FEC from the packet after a loss: libopus
// conceals when the LBRR data is not there, and only the bitstream says which happened. The framing is libopus's own
// parser; the LBRR flag, which libopus 1.3 does not expose, is read here. This parses network input, so it trusts no
// length and reads nothing past the packet.
import COpus

/// Reads an Opus packet's framing and SILK header bits (RFC 6716 §3.2, §4.1, §4.2.3).
public enum OpusPacketInspection {
    /// The byte range of the packet's first frame, or nil when libopus rejects the packet (`opus_packet_parse`)
    /// or the frame is empty (a TOC-only or DTX packet).
    public static func firstFrame(_ packet: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard let base = packet.baseAddress, !packet.isEmpty else { return nil }
        // 48 frames of 2.5 ms fill the longest packet (120 ms); stack storage, since this runs on the audio path.
        return withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>?.self, capacity: 48) { frames in
            withUnsafeTemporaryAllocation(of: Int16.self, capacity: 48) { sizes in
                var toc: UInt8 = 0
                let count = opus_packet_parse(
                    base, Int32(clamping: packet.count), &toc, frames.baseAddress, sizes.baseAddress!, nil)
                guard count > 0, let first = frames[0], sizes[0] > 0 else { return nil }
                let start = first - base
                return start..<(start + Int(sizes[0]))
            }
        }
    }

    /// Whether the packet's first frame carries SILK LBRR data, i.e. in-band FEC for the frame before it (what
    /// libopus decodes with `decode_fec`). Only SILK and hybrid frames can; CELT-only packets never do.
    public static func carriesLBRR(_ packet: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let toc = packet.first, let frame = firstFrame(packet) else { return false }
        let configuration = toc >> 3
        guard configuration < 16 else { return false }
        // SILK frames per Opus frame: SILK-only configurations code 10, 20, 40, 60 ms (one SILK frame per 20 ms);
        // hybrid ones 10 or 20 ms (one).
        let silkFrames = configuration < 12 ? max(1, Int(configuration & 3)) : 1
        let stereo = toc & 0x04 != 0
        var decoder = RangeDecoder(packet, frame: frame)
        // Header bits (§4.2.3): per channel, a VAD flag per SILK frame, then that channel's LBRR flag.
        for _ in 0..<(stereo ? 2 : 1) {
            for _ in 0..<silkFrames { _ = decoder.bit() }
            if decoder.bit() { return true }
        }
        return false
    }
}

/// The start of RFC 6716's range decoder (§4.1.1–§4.1.3.2), enough to read equiprobable flags. Bytes past the
/// frame read as zero, as the RFC specifies.
private struct RangeDecoder {
    private let packet: UnsafeBufferPointer<UInt8>
    private let frame: Range<Int>
    private var offset: Int
    private var range: UInt32 = 128
    private var value: UInt32
    /// The last byte read: its low bit is the next symbol's high bit.
    private var remainder: UInt32

    init(_ packet: UnsafeBufferPointer<UInt8>, frame: Range<Int>) {
        self.packet = packet
        self.frame = frame
        offset = frame.lowerBound
        let first = UInt32(packet[offset])
        offset += 1
        value = 127 - (first >> 1)
        remainder = first
        normalize()
    }

    /// A binary symbol whose two values are equally likely (`ec_dec_bit_logp` with logp 1).
    mutating func bit() -> Bool {
        let split = range >> 1
        let one = value < split
        if one {
            range = split
        } else {
            value -= split
            range -= split
        }
        normalize()
        return one
    }

    private mutating func normalize() {
        while range <= 1 << 23 {
            range <<= 8
            let byte: UInt32 = offset < frame.upperBound ? UInt32(packet[offset]) : 0
            offset += 1
            let symbol = ((remainder << 8) | byte) >> 1 & 0xFF
            remainder = byte
            value = ((value << 8) &+ (255 - symbol)) & 0x7FFF_FFFF
        }
    }
}
