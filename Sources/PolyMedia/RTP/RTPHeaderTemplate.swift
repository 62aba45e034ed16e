// A stream's RTP header encoded once; per packet only the changing fields are patched in.

/// The encoded header (fixed header, CSRCs, extension block) shared by a stream's packets.
///
/// Per packet, `write` copies it, patches sequence number, timestamp, marker and (optionally) the
/// audio level byte, and copies the payload: no field-by-field encoding and no allocation.
public struct RTPHeaderTemplate: Sendable, Equatable {
    /// The encoded header as first built (sequence number and timestamp are overwritten per packet).
    public let bytes: [UInt8]
    /// Second header byte without the marker bit (the payload type).
    @usableFromInline let payloadTypeByte: UInt8
    /// Index of the audio level element's data byte in `bytes`, or -1 without one.
    @usableFromInline let audioLevelOffset: Int

    /// Encodes `header` (its padding-free form); `audioLevelID` names the element `write` updates.
    public init(header: RTPHeader, audioLevelID: UInt8? = nil) throws(RTPSerializeError) {
        var encoded = [UInt8](repeating: 0, count: header.wireCount)
        let count = try encoded.withUnsafeMutableBytes { buffer in
            Result { () throws(RTPSerializeError) -> Int in
                try header.write(payload: UnsafeRawBufferPointer(start: nil, count: 0), into: buffer)
            }
        }.get()
        bytes = Array(encoded.prefix(count))
        payloadTypeByte = header.payloadType
        let view = try? RTPPacketView(parsing: bytes)
        if let id = audioLevelID, let range = view?.extensionDataRange(id: id), range.count == 1 {
            audioLevelOffset = range.lowerBound
        } else {
            audioLevelOffset = -1
        }
    }

    /// Writes one packet: this header with the given fields, then `payload`; returns its length.
    /// `audioLevel` is ignored when the template has no audio level element.
    @inlinable public func write(
        sequenceNumber: UInt16, timestamp: UInt32, marker: Bool, audioLevel: RTPAudioLevel? = nil,
        payload: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer
    ) throws(RTPSerializeError) -> Int {
        let headerCount = bytes.count
        let needed = headerCount &+ payload.count  // two sizes of buffers in memory: no overflow
        guard buffer.count >= needed, let out = buffer.baseAddress else {
            throw .bufferTooSmall(needed: needed, available: buffer.count)
        }
        bytes.withUnsafeBytes { header in
            // The encoded header is at least the 12-byte fixed header.
            out.copyMemory(from: header.baseAddress.unsafelyUnwrapped, byteCount: headerCount)
        }
        out.storeBytes(of: marker ? payloadTypeByte | 0x80 : payloadTypeByte, toByteOffset: 1, as: UInt8.self)
        out.storeBytes(of: sequenceNumber.bigEndian, toByteOffset: 2, as: UInt16.self)
        out.storeBytes(of: timestamp.bigEndian, toByteOffset: 4, as: UInt32.self)
        if let audioLevel, audioLevelOffset >= 0 {
            let byte = (audioLevel.voiceActivity ? 0x80 : 0) | audioLevel.level
            out.storeBytes(of: byte, toByteOffset: audioLevelOffset, as: UInt8.self)
        }
        if let source = payload.baseAddress {
            (out + headerCount).copyMemory(from: source, byteCount: payload.count)
        }
        return needed
    }
}
