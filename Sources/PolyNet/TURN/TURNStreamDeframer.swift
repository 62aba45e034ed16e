// Cuts a TCP/TLS byte stream to a TURN server into its messages (RFC 8656 §10.2, §12.5): STUN messages
// and ChannelData messages interleaved, each found by its own header's length, arriving in any split.
import PolyCore

/// Buffers stream bytes and yields whole frames: a STUN message (header + body) or a ChannelData message
/// (header + data, the padding removed).
///
/// Lengths are only used to find frame boundaries; the frames are then decoded by the strict parsers. A frame
/// longer than `maxFrameLength` is discarded as it streams past instead of being buffered, so memory stays
/// bounded whatever the lengths say, and the stream stays in sync.
public struct TURNStreamDeframer: Sendable {
    /// The stream cannot be resynchronised: a frame started with neither STUN's nor ChannelData's first bits.
    public struct Desynchronized: Error, Equatable, Sendable {}

    public let maxFrameLength: Int
    /// Frames discarded for exceeding `maxFrameLength`.
    public private(set) var oversizedFrames = 0

    private var buffer: [UInt8] = []
    private var head = 0
    /// Bytes still to discard of an oversized frame.
    private var skipping = 0
    private var broken = false

    /// `maxFrameLength` bounds the buffered bytes of one frame (header, body and padding included).
    public init(maxFrameLength: Int = 4096) {
        self.maxFrameLength = max(maxFrameLength, STUNMessage.headerLength)
    }

    /// Bytes buffered and not yet returned as a frame.
    public var bufferedCount: Int { buffer.count - head }

    /// Appends bytes read from the stream (any amount: a byte, a partial frame, many frames). Drain
    /// `nextFrame()` after each append: then at most one read plus one partial frame is ever buffered.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        guard !broken else { return }
        var rest = bytes[...]
        if skipping > 0 {
            let dropped = min(skipping, rest.count)
            skipping -= dropped
            rest = rest.dropFirst(dropped)
        }
        buffer.append(contentsOf: rest)
    }

    /// The next whole frame, nil when more bytes are needed; throws once the stream is unusable.
    public mutating func nextFrame() throws(Desynchronized) -> [UInt8]? {
        while true {
            guard !broken else { throw Desynchronized() }
            guard skipping == 0 else { return nil }
            guard bufferedCount > 0 else {
                compact()
                return nil
            }
            guard let kind = Kind(buffer[head]) else {
                broken = true
                releaseBuffer()
                throw Desynchronized()
            }
            guard let length = announcedLength() else { return nil }
            let frameLength: Int
            let keptLength: Int
            switch kind {
            case .stun:
                frameLength = STUNMessage.headerLength + length
                keptLength = frameLength
            case .channelData:
                keptLength = ChannelData.headerLength + length
                frameLength = keptLength + (4 - length % 4) % 4
            }
            if frameLength > maxFrameLength {
                oversizedFrames += 1
                let available = min(frameLength, bufferedCount)
                head += available
                skipping = frameLength - available
                compact()
                continue
            }
            guard bufferedCount >= frameLength else { return nil }
            let frame = Array(buffer[head..<(head + keptLength)])
            head += frameLength
            compact()
            return frame
        }
    }

    /// The 16-bit length in bytes 2–3 of the frame at `head`, read through the bounds-checked reader; nil
    /// until those bytes arrived. (The reader lives only in here, so no slice keeps the buffer shared.)
    private func announcedLength() -> Int? {
        var reader = ByteReader(buffer[head...])
        guard (try? reader.skip(2)) != nil, let length = try? reader.readUInt16() else { return nil }
        return Int(length)
    }

    private enum Kind {
        case stun, channelData
        init?(_ firstByte: UInt8) {
            switch firstByte & 0xC0 {
            case 0x00: self = .stun
            case 0x40: self = .channelData
            default: return nil
            }
        }
    }

    /// Drops consumed bytes once they are the larger part of the buffer (amortised O(1) per byte).
    private mutating func compact() {
        if head == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 2 * maxFrameLength)
            head = 0
        } else if head > buffer.count / 2 {
            buffer.removeFirst(head)
            head = 0
        }
    }

    private mutating func releaseBuffer() {
        buffer = []
        head = 0
    }
}
