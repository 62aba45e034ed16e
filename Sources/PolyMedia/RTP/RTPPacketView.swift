// Zero-copy parse of an RTP datagram (RFC 3550 §5.1): header fields plus offsets into the bytes.
import PolyCore

/// A validated RTP packet read in place: the fixed-header fields, and index ranges of the CSRC list,
/// header extension and payload inside `bytes`. Nothing is copied, so it suits the per-packet path:
/// the fixed-header fields are read from `bytes` when asked for (parsing checked they are there), so
/// a caller pays only for the fields it uses.
/// Inlinable so callers in other modules get code specialised for their byte collection.
///
/// On the per-packet path, parse an `UnsafeRawBufferPointer` (e.g. inside `withUnsafeBytes` over the
/// receive buffer): the view then holds no reference, so parsing costs no retain/release; views
/// over arrays and slices work the same way and are `Sendable`.
public struct RTPPacketView<Bytes: RandomAccessCollection> where Bytes.Element == UInt8, Bytes.Index == Int {
    /// The whole datagram.
    public let bytes: Bytes
    public let csrcCount: Int
    /// The extension's "defined by profile" value, nil when the X bit is clear.
    public let extensionProfile: UInt16?
    /// The RFC 8285 form the profile announces; nil without extension or for another profile.
    public let extensionForm: RTPHeaderExtensionForm?
    /// Absolute indices of the extension data (after its 4-byte header); empty without extension.
    public let extensionRange: Range<Int>
    /// Absolute indices of the payload (padding excluded).
    public let payloadRange: Range<Int>
    /// Number of padding bytes at the end (0 when the P bit is clear).
    public let paddingCount: Int
    /// Where the RFC 8285 elements start, recorded while validating (empty without such a block).
    public let extensionIndex: RTPHeaderExtensionIndex

    /// Parses and validates `bytes`; RFC 8285 extension elements are checked to fit their block.
    // Always inlined: returned through memory, the large view costs a store-forwarding stall per packet.
    // Each read maps its own failure to the RTP error (typed throws, no existential error boxing).
    @inlinable @inline(__always) public init(parsing bytes: Bytes) throws(RTPParseError) {
        self.bytes = bytes
        var reader = ByteReader(bytes)
        let length = reader.remaining
        guard length >= 12 else { throw .shorterThanFixedHeader(length: length) }
        let first: UInt8
        do throws(ByteReaderError) {
            first = try reader.readUInt8()
            try reader.skip(11)  // the rest of the fixed header, read by the field accessors
        } catch {
            throw .shorterThanFixedHeader(length: length)
        }
        guard first >> 6 == 2 else { throw .unsupportedVersion(first >> 6) }
        csrcCount = Int(first & 0x0F)  // at most 15: the wrapping arithmetic below cannot overflow

        if first & 0x20 != 0 {
            let count = Int(bytes[bytes.endIndex - 1])  // length >= 12: the last byte exists
            guard count > 0, count <= reader.remaining &- csrcCount &* 4 else { throw .invalidPadding(count: count) }
            do { try reader.dropLast(count) } catch { throw .invalidPadding(count: count) }
            paddingCount = count
        } else {
            paddingCount = 0
        }
        do { try reader.skip(csrcCount &* 4) } catch { throw .csrcListTruncated(count: csrcCount) }

        var index = RTPHeaderExtensionIndex()
        var form: RTPHeaderExtensionForm? = nil
        var payloadStart = reader.position
        if first & 0x10 != 0 {
            let header: UInt32
            var block: ByteReader<Bytes>
            do throws(ByteReaderError) {
                header = try reader.readUInt32()  // "defined by profile" and the length in 32-bit words
                block = reader
                // The block is what remains minus what follows it: this throws when the announced
                // length exceeds the rest of the datagram (words < 2^16: no overflow).
                try block.dropLast(block.remaining &- Int(header & 0xFFFF) &* 4)
            } catch {
                throw .headerExtensionTruncated
            }
            let profile = UInt16(truncatingIfNeeded: header &>> 16)
            extensionProfile = profile
            extensionRange = block.position..<block.end
            payloadStart = block.end
            form = RTPHeaderExtensionForm(profile: profile)
            switch form {
            case .oneByte: try index.indexOneByteElements(of: &block)
            case .twoByte: try index.indexTwoByteElements(of: &block)
            case nil: break
            }
        } else {
            extensionProfile = nil
            extensionRange = payloadStart..<payloadStart
        }
        extensionForm = form
        extensionIndex = index
        payloadRange = payloadStart..<reader.end
    }

    // MARK: Fixed-header fields (RFC 3550 §5.1), at offsets parsing checked to lie inside `bytes`.

    @inlinable public var marker: Bool { headerByte(1) & 0x80 != 0 }
    @inlinable public var payloadType: UInt8 { headerByte(1) & 0x7F }
    @inlinable public var sequenceNumber: UInt16 { UInt16(truncatingIfNeeded: headerWord(0)) }
    @inlinable public var timestamp: UInt32 { headerWord(4) }
    @inlinable public var ssrc: UInt32 { headerWord(8) }

    @inlinable @inline(__always) func headerByte(_ offset: Int) -> UInt8 { bytes[bytes.startIndex &+ offset] }

    /// The big-endian word at `offset` (0, 4 or 8) of the fixed header. Contiguous bytes (buffer
    /// pointers, arrays) are read with one load: byte-wise reads would be combined only when the
    /// bytes are assembled where they are loaded, which the optimiser does not guarantee.
    @inlinable @inline(__always) func headerWord(_ offset: Int) -> UInt32 {
        let word = bytes.withContiguousStorageIfAvailable { buffer in
            UnsafeRawBufferPointer(buffer).loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        }
        if let word { return UInt32(bigEndian: word) }
        let high = UInt32(headerByte(offset)) << 24 | UInt32(headerByte(offset &+ 1)) << 16
        return high | UInt32(headerByte(offset &+ 2)) << 8 | UInt32(headerByte(offset &+ 3))
    }

    /// Absolute indices of the data of the first extension element `id`, or nil when absent.
    /// O(1) for IDs 1–15 (recorded while parsing); other IDs walk the block.
    @inlinable @inline(__always) public func extensionDataRange(id: UInt8) -> Range<Int>? {
        guard let form = extensionForm else { return nil }
        guard let known = extensionIndex.offset(id: id) else {
            return Self.walkForDataRange(id: id, bytes: bytes, range: extensionRange, form: form)
        }
        guard let offset = known else { return nil }
        let (start, count) = recordedElement(at: offset, form: form)
        return start..<(start &+ count)
    }

    /// Start and length of the data of the element whose header is `offset` bytes into the block:
    /// recorded offsets point at an element validated to fit the block.
    @inlinable @inline(__always) func recordedElement(at offset: Int, form: RTPHeaderExtensionForm) -> (Int, Int) {
        let header = extensionRange.lowerBound &+ offset
        if form == .oneByte { return (header &+ 1, Int(bytes[header] & 0x0F) &+ 1) }
        return (header &+ 2, Int(bytes[header &+ 1]))
    }

    /// The lookup of an ID the index could not record (rare: large blocks, two-byte IDs above 15).
    /// Static, with only what it needs: a method would make every caller spill the whole view.
    @inlinable @inline(never) static func walkForDataRange(
        id: UInt8, bytes: Bytes, range: Range<Int>, form: RTPHeaderExtensionForm
    ) -> Range<Int>? {
        RTPHeaderExtensionElements(bytes: bytes, range: range, form: form).first { $0.id == id }?.dataRange
    }

    /// The RFC 6464 audio level in element `id`, if present and one byte long.
    @inlinable @inline(__always) public func audioLevel(id: UInt8) -> RTPAudioLevel? {
        let start: Int
        if let form = extensionForm, case .some(.some(let offset)) = extensionIndex.offset(id: id) {
            let (dataStart, count) = recordedElement(at: offset, form: form)
            guard count == 1 else { return nil }
            start = dataStart
        } else {
            guard let range = extensionDataRange(id: id), range.count == 1 else { return nil }
            start = range.lowerBound
        }
        let byte = bytes[start]
        return RTPAudioLevel(voiceActivity: byte & 0x80 != 0, level: byte & 0x7F)
    }

    /// The MID (RFC 9143) in element `id`, if present and valid UTF-8.
    @inlinable public func mid(id: UInt8) -> String? {
        guard let range = extensionDataRange(id: id) else { return nil }
        return String(validating: bytes[range], as: UTF8.self)
    }

    /// Header length in bytes (fixed header, CSRCs and extension).
    @inlinable public var headerLength: Int { payloadRange.lowerBound - bytes.startIndex }

    /// The payload bytes (no copy for arrays and slices).
    @inlinable public var payload: Bytes.SubSequence { bytes[payloadRange] }

    /// The `index`th contributing source (0 ..< csrcCount).
    @inlinable public func csrc(_ index: Int) -> UInt32 {
        precondition(index >= 0 && index < csrcCount, "CSRC index out of range")
        let base = bytes.startIndex + 12 + index * 4
        var value: UInt32 = 0
        for i in 0..<4 { value = value << 8 | UInt32(bytes[base + i]) }
        return value
    }

    /// The RFC 8285 elements of the extension block, or nil without one (or for another profile).
    @inlinable public var extensionElements: RTPHeaderExtensionElements<Bytes>? {
        guard let form = extensionForm else { return nil }
        return RTPHeaderExtensionElements(bytes: bytes, range: extensionRange, form: form)
    }
}

extension RTPPacketView: Sendable where Bytes: Sendable {}
