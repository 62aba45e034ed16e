// The RTP header of an outgoing packet, and its serialization into a caller's buffer without allocation.

/// The header fields of an RTP packet to send (RFC 3550 §5.1; version is always 2).
public struct RTPHeader: Sendable, Equatable {
    public var marker: Bool
    public var payloadType: UInt8
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32
    /// Contributing sources, at most 15 (an empty array does not allocate).
    public var csrcs: [UInt32]
    public var extensions: RTPHeaderExtensions?

    public init(
        marker: Bool = false, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32,
        csrcs: [UInt32] = [], extensions: RTPHeaderExtensions? = nil
    ) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.extensions = extensions
    }

    /// Reads the header fields of a parsed packet (copies CSRCs and extension elements).
    public init<Bytes>(_ view: RTPPacketView<Bytes>) {
        self.init(
            marker: view.marker, payloadType: view.payloadType, sequenceNumber: view.sequenceNumber,
            timestamp: view.timestamp, ssrc: view.ssrc, csrcs: (0..<view.csrcCount).map(view.csrc))
        if let elements = view.extensionElements {
            var owned = RTPHeaderExtensions(form: elements.form)
            for element in elements {
                try? owned.append(id: element.id, data: view.bytes[element.dataRange])
            }
            extensions = owned
        }
    }

    /// Bytes this header takes on the wire.
    public var wireCount: Int { 12 + csrcs.count * 4 + (extensions?.wireCount ?? 0) }
}

/// Why a packet could not be written.
public enum RTPSerializeError: Error, Equatable, Sendable {
    /// The caller's buffer is smaller than the packet.
    case bufferTooSmall(needed: Int, available: Int)
    /// More than 15 CSRCs, a payload type above 127, or padding outside 1…255.
    case invalidField
}

extension RTPHeader {
    /// Writes header, payload and `paddingCount` padding bytes into `buffer`; returns the packet length.
    public func write(
        payload: UnsafeRawBufferPointer, paddingCount: Int = 0, into buffer: UnsafeMutableRawBufferPointer
    ) throws(RTPSerializeError) -> Int {
        guard csrcs.count <= 15, payloadType <= 127, (0...255).contains(paddingCount) else { throw .invalidField }
        let needed = wireCount + payload.count + paddingCount
        guard buffer.count >= needed else { throw .bufferTooSmall(needed: needed, available: buffer.count) }
        var writer = FixedBufferWriter(buffer)
        writer.write(
            UInt8(0x80) | (paddingCount > 0 ? 0x20 : 0) | (extensions != nil ? 0x10 : 0) | UInt8(csrcs.count))
        writer.write((marker ? 0x80 : 0) | payloadType)
        writer.write(sequenceNumber)
        writer.write(timestamp)
        writer.write(ssrc)
        for csrc in csrcs { writer.write(csrc) }
        if let extensions {
            writer.write(extensions.form.profile)
            writer.write(UInt16((extensions.wireCount - 4) / 4))
            extensions.encodedElements.withUnsafeBytes { writer.write(bytes: $0) }
            writer.writeZeros(extensions.wireCount - 4 - extensions.encodedElements.count)
        }
        writer.write(bytes: payload)
        if paddingCount > 0 {
            writer.writeZeros(paddingCount - 1)
            writer.write(UInt8(paddingCount))
        }
        return writer.count
    }
}
