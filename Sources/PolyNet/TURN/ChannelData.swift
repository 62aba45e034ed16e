// ChannelData messages (RFC 8656 §12.4): a 4-byte header (channel number, length) and the application data,
// the compact framing of data to and from a peer once a channel is bound.
import PolyCore

/// One ChannelData message.
public struct ChannelData: Hashable, Sendable {
    /// Channel numbers a client may bind (RFC 8656 §12): 0x4000 through 0x4FFF.
    public static let validChannels: ClosedRange<UInt16> = 0x4000...0x4FFF
    public static let headerLength = 4

    public var channel: UInt16
    public var data: [UInt8]

    public init(channel: UInt16, data: [UInt8]) {
        self.channel = channel
        self.data = data
    }

    /// True when `firstByte` starts a ChannelData message (first two bits 0b01), as opposed to STUN (0b00).
    public static func startsChannelData(_ firstByte: UInt8) -> Bool { firstByte & 0xC0 == 0x40 }

    /// Why bytes were refused as a ChannelData message.
    public enum ParseError: Error, Equatable, Sendable {
        case truncated
        /// The channel number is outside 0x4000–0x4FFF.
        case invalidChannel(UInt16)
        /// More bytes follow the data than the (at most 3 bytes of) padding allows.
        case trailingBytes
    }

    /// Parses one message (a UDP datagram, or one frame cut by `TURNStreamDeframer`); the header's length is
    /// checked against the bytes really there, and at most 3 bytes of padding may follow the data.
    public init<Bytes: RandomAccessCollection>(parsing bytes: Bytes) throws(ParseError)
    where Bytes.Element == UInt8, Bytes.Index == Int {
        var reader = ByteReader(bytes)
        let channel: UInt16
        let length: Int
        do {
            channel = try reader.readUInt16()
            length = Int(try reader.readUInt16())
        } catch { throw .truncated }
        guard Self.validChannels.contains(channel) else { throw .invalidChannel(channel) }
        guard length <= reader.remaining else { throw .truncated }
        guard reader.remaining - length <= 3 else { throw .trailingBytes }
        do { data = Array(try reader.readBytes(length)) } catch { throw .truncated }
        self.channel = channel
    }

    /// The wire bytes; `padded` rounds the message up to a multiple of 4 bytes (required over TCP/TLS,
    /// RFC 8656 §12.5), without counting the padding in the length field.
    public func encoded(padded: Bool) -> [UInt8] {
        var writer = ByteWriter(capacity: Self.headerLength + data.count + 3)
        writer.write(channel)
        writer.write(UInt16(truncatingIfNeeded: data.count))
        writer.write(contentsOf: data)
        if padded { for _ in 0..<((4 - data.count % 4) % 4) { writer.write(UInt8(0)) } }
        return writer.bytes
    }
}
