// Zero-copy parse of an RTP datagram (RFC 3550 §5.1): header fields plus offsets into the bytes.
import PolyCore

/// A validated RTP packet read in place: the fixed-header fields, and index ranges of the CSRC list,
/// header extension and payload inside `bytes`. Nothing is copied, so it suits the per-packet path.
public struct RTPPacketView<Bytes: RandomAccessCollection>: Sendable
where Bytes.Element == UInt8, Bytes.Index == Int, Bytes: Sendable, Bytes.SubSequence: Sendable {
    /// The whole datagram.
    public let bytes: Bytes
    public let marker: Bool
    public let payloadType: UInt8
    public let sequenceNumber: UInt16
    public let timestamp: UInt32
    public let ssrc: UInt32
    public let csrcCount: Int
    /// The extension's "defined by profile" value, nil when the X bit is clear.
    public let extensionProfile: UInt16?
    /// Absolute indices of the extension data (after its 4-byte header); empty without extension.
    public let extensionRange: Range<Int>
    /// Absolute indices of the payload (padding excluded).
    public let payloadRange: Range<Int>
    /// Number of padding bytes at the end (0 when the P bit is clear).
    public let paddingCount: Int

    /// Parses and validates `bytes`; RFC 8285 extension elements are checked to fit their block.
    public init(parsing bytes: Bytes) throws(RTPParseError) {
        self.bytes = bytes
        var reader = ByteReader(bytes)
        guard reader.remaining >= 12 else { throw .shorterThanFixedHeader(length: reader.remaining) }
        do {
            let first = try reader.readUInt8()
            guard first >> 6 == 2 else { throw RTPParseError.unsupportedVersion(first >> 6) }
            let second = try reader.readUInt8()
            marker = second & 0x80 != 0
            payloadType = second & 0x7F
            sequenceNumber = try reader.readUInt16()
            timestamp = try reader.readUInt32()
            ssrc = try reader.readUInt32()
            csrcCount = Int(first & 0x0F)

            if first & 0x20 != 0 {
                let count = Int(bytes[bytes.endIndex - 1])
                guard count > 0, count <= reader.remaining - csrcCount * 4 else {
                    throw RTPParseError.invalidPadding(count: count)
                }
                try reader.dropLast(count)
                paddingCount = count
            } else {
                paddingCount = 0
            }
            do { try reader.skip(csrcCount * 4) } catch { throw RTPParseError.csrcListTruncated(count: csrcCount) }

            if first & 0x10 != 0 {
                do {
                    let profile = try reader.readUInt16()
                    let words = Int(try reader.readUInt16())
                    let start = reader.position
                    try reader.skip(words * 4)
                    extensionProfile = profile
                    extensionRange = start..<(start + words * 4)
                } catch {
                    throw RTPParseError.headerExtensionTruncated
                }
            } else {
                extensionProfile = nil
                extensionRange = reader.position..<reader.position
            }
            payloadRange = reader.position..<reader.end
        } catch let error as RTPParseError {
            throw error
        } catch {
            throw .shorterThanFixedHeader(length: bytes.count)
        }
        try extensionElements?.validate()
    }

    /// Header length in bytes (fixed header, CSRCs and extension).
    public var headerLength: Int { payloadRange.lowerBound - bytes.startIndex }

    /// The payload bytes (no copy for arrays and slices).
    public var payload: Bytes.SubSequence { bytes[payloadRange] }

    /// The `index`th contributing source (0 ..< csrcCount).
    public func csrc(_ index: Int) -> UInt32 {
        precondition(index >= 0 && index < csrcCount, "CSRC index out of range")
        let base = bytes.startIndex + 12 + index * 4
        var value: UInt32 = 0
        for i in 0..<4 { value = value << 8 | UInt32(bytes[base + i]) }
        return value
    }

    /// The RFC 8285 elements of the extension block, or nil without one (or for another profile).
    public var extensionElements: RTPHeaderExtensionElements<Bytes>? {
        guard let profile = extensionProfile, let form = RTPHeaderExtensionForm(profile: profile) else { return nil }
        return RTPHeaderExtensionElements(bytes: bytes, range: extensionRange, form: form)
    }
}
