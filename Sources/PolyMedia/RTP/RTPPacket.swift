// An owned RTP packet (header + payload) for tests, tools and code off the per-packet path.

/// An RTP packet with its own copy of the payload.
public struct RTPPacket: Sendable, Equatable {
    public var header: RTPHeader
    public var payload: [UInt8]
    /// Padding bytes to add when serialized (0 = none).
    public var paddingCount: Int

    public init(header: RTPHeader, payload: [UInt8], paddingCount: Int = 0) {
        self.header = header
        self.payload = payload
        self.paddingCount = paddingCount
    }

    /// Parses a datagram into an owned packet.
    public init(parsing bytes: [UInt8]) throws(RTPParseError) {
        let view = try RTPPacketView(parsing: bytes)
        self.init(header: RTPHeader(view), payload: Array(view.payload), paddingCount: view.paddingCount)
    }

    /// Bytes on the wire.
    public var wireCount: Int { header.wireCount + payload.count + paddingCount }

    /// Writes the packet into `buffer` (no allocation); returns its length.
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTPSerializeError) -> Int {
        try payload.withUnsafeBytes { payload in
            Result { () throws(RTPSerializeError) -> Int in
                try header.write(payload: payload, paddingCount: paddingCount, into: buffer)
            }
        }.get()
    }

    /// The packet as a new array.
    public func serialized() throws(RTPSerializeError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: wireCount)
        let count = try bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(RTPSerializeError) -> Int in try write(into: buffer) }
        }.get()
        return Array(bytes.prefix(count))
    }
}
