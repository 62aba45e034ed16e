// What a receiver can read from an Opus packet without decoding it (RFC 6716): where its first frame is and
// whether that frame carries in-band FEC. A receiver asks before decoding FEC from the packet after a loss: libopus
// conceals when the LBRR data is not there, and only the bitstream says which happened. This parses network input,
// so it trusts no length and reads nothing past the packet.

/// Reads an Opus packet's framing and SILK header bits (RFC 6716 §3.2, §4.1, §4.2.3).
public enum OpusPacketInspection {
    /// The byte range of the packet's first frame, or nil when the packet is malformed or has no frame data
    /// (a TOC-only packet; RFC 6716 §3.2's framing rules R1–R7 as far as the first frame needs them).
    public static func firstFrame(_ packet: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard let toc = packet.first else { return nil }
        let end = packet.count
        let frame: Range<Int>
        switch toc & 3 {
        case 0:
            frame = 1..<end
        case 1:
            guard (end - 1) % 2 == 0 else { return nil }
            frame = 1..<(1 + (end - 1) / 2)
        case 2:
            guard let (length, next) = frameLength(packet, at: 1), next + length <= end else { return nil }
            frame = next..<(next + length)
        default:
            guard end >= 2 else { return nil }
            let countByte = packet[1]
            let count = Int(countByte & 0x3F)
            guard count > 0 else { return nil }
            var next = 2
            var padding = 0
            if countByte & 0x40 != 0 {
                // Padding length: bytes of 255 add 254 each, the first other byte ends it.
                while true {
                    guard next < end else { return nil }
                    let byte = Int(packet[next])
                    next += 1
                    padding += byte == 255 ? 254 : byte
                    if byte != 255 { break }
                }
            }
            if countByte & 0x80 != 0 {
                // VBR: the first count − 1 frames' lengths follow; the first frame's data comes after all of them.
                var firstLength: Int?
                for _ in 0..<(count - 1) {
                    guard let (length, after) = frameLength(packet, at: next) else { return nil }
                    firstLength = firstLength ?? length
                    next = after
                }
                let dataEnd = end - padding
                guard next <= dataEnd else { return nil }
                let first = firstLength ?? (dataEnd - next)
                guard next + first <= dataEnd else { return nil }
                frame = next..<(next + first)
            } else {
                let data = end - padding - next
                guard data >= 0, data % count == 0 else { return nil }
                frame = next..<(next + data / count)
            }
        }
        return frame.isEmpty ? nil : frame
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

    /// A frame length of one or two bytes at `index` (§3.2.1) and the index after it.
    private static func frameLength(_ packet: UnsafeBufferPointer<UInt8>, at index: Int) -> (Int, Int)? {
        guard index < packet.count else { return nil }
        let first = Int(packet[index])
        if first < 252 { return (first, index + 1) }
        guard index + 1 < packet.count else { return nil }
        return (Int(packet[index + 1]) * 4 + first, index + 2)
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
