// RFC 4733 telephone-event payloads: the DTMF digits as event codes and the 4-byte payload, parsed with
// bounds checks (it arrives from the network) and written into a caller's buffer.
import PolyCore

/// A DTMF key: 0-9, *, #, A-D (RFC 4733 §3.2 events 0-15).
public struct DTMFDigit: Sendable, Hashable, CustomStringConvertible {
    /// The RFC 4733 event code, 0...15.
    public let event: UInt8

    static let characters: [Character] = [
        "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "#", "A", "B", "C", "D",
    ]

    public init?(event: UInt8) {
        guard event < 16 else { return nil }
        self.event = event
    }

    public init?(_ character: Character) {
        guard let index = Self.characters.firstIndex(of: character) else { return nil }
        event = UInt8(index)
    }

    public var character: Character { Self.characters[Int(event)] }
    public var description: String { String(character) }

    /// Parses a dial string; throws naming the first character that is not a DTMF key.
    public static func parse(_ digits: String) throws(DTMFError) -> [DTMFDigit] {
        guard !digits.isEmpty else { throw .invalidDigits("no digits to send") }
        guard digits.count <= 64 else { throw .invalidDigits("at most 64 digits at once, not \(digits.count)") }
        var parsed: [DTMFDigit] = []
        for character in digits {
            guard let digit = DTMFDigit(character) else {
                throw .invalidDigits("'\(character)' is not a DTMF digit (0-9, *, #, A-D)")
            }
            parsed.append(digit)
        }
        return parsed
    }
}

/// Why DTMF could not be sent.
public enum DTMFError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidDigits(String)
    case invalidDuration(String)
    /// Media is not connected (or the call cannot send).
    case notConnected

    public var description: String {
        switch self {
        case .invalidDigits(let why), .invalidDuration(let why): why
        case .notConnected: "DTMF needs connected media"
        }
    }
}

/// One telephone-event payload (RFC 4733 §2.3): event, end bit, volume (−dBm0), duration in RTP units.
public struct TelephoneEvent: Sendable, Equatable {
    public static let wireCount = 4

    public var event: UInt8
    public var end: Bool
    /// 0...63: the power level in −dBm0.
    public var volume: UInt8
    /// Since the event's RTP timestamp, in RTP clock units (48 kHz with Opus).
    public var duration: UInt16

    public init(event: UInt8, end: Bool, volume: UInt8 = 10, duration: UInt16) {
        self.event = event
        self.end = end
        self.volume = volume & 0x3F
        self.duration = duration
    }

    /// Parses the first 4 bytes of `payload`; throws if fewer arrived (extra bytes, e.g. RFC 2198, are ignored).
    public init(parsing payload: UnsafeRawBufferPointer) throws(ByteReaderError) {
        var reader = ByteReader(payload)
        event = try reader.readUInt8()
        let flags = try reader.readUInt8()
        end = flags & 0x80 != 0
        volume = flags & 0x3F
        duration = try reader.readUInt16()
    }

    /// Writes the 4 bytes at the start of `buffer` (which must hold them).
    public func write(into buffer: UnsafeMutableRawBufferPointer) {
        precondition(buffer.count >= Self.wireCount)
        buffer[0] = event
        buffer[1] = (end ? 0x80 : 0) | (volume & 0x3F)
        buffer[2] = UInt8(duration >> 8)
        buffer[3] = UInt8(duration & 0xFF)
    }
}
