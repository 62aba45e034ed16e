// The sending side of one RTP stream: identifiers, sequence/timestamp progression, marker rule, counters.

/// Produces the header of each packet of an outgoing stream (one SSRC).
///
/// Starts at a random sequence number, timestamp and SSRC (RFC 3550 §5.1) drawn from the caller's
/// generator; both counters wrap around modulo 2¹⁶ / 2³². The first packet, and the first after any
/// skipped (DTX) frame, carries the marker bit (RFC 7587 §4.1 talkspurt start).
public struct RTPOutgoingStream: Sendable {
    public let ssrc: UInt32
    public let payloadType: UInt8
    /// The sequence number the next packet will carry.
    public private(set) var nextSequenceNumber: UInt16
    /// The RTP timestamp the next packet will carry.
    public private(set) var nextTimestamp: UInt32
    /// Header extensions put on every packet (e.g. MID); update the audio level per packet in place.
    public var extensions: RTPHeaderExtensions?
    private var talkspurtStart = true

    /// Packets and payload/header bytes recorded by `recordSent`.
    public private(set) var packetsSent: UInt64 = 0
    public private(set) var payloadBytesSent: UInt64 = 0
    public private(set) var headerBytesSent: UInt64 = 0
    /// RTP timestamp of the last packet sent (for RTCP sender reports).
    public private(set) var lastTimestampSent: UInt32?

    /// A stream with random initial SSRC, sequence number and timestamp from `generator`.
    public init<Generator: RandomNumberGenerator>(
        payloadType: UInt8, extensions: RTPHeaderExtensions? = nil, using generator: inout Generator
    ) {
        self.init(
            ssrc: UInt32.random(in: 1...UInt32.max, using: &generator), payloadType: payloadType,
            initialSequenceNumber: UInt16.random(in: 0...UInt16.max, using: &generator),
            initialTimestamp: UInt32.random(in: 0...UInt32.max, using: &generator), extensions: extensions)
    }

    /// A stream with given identifiers (tests, or an SSRC fixed by signaling).
    public init(
        ssrc: UInt32, payloadType: UInt8, initialSequenceNumber: UInt16, initialTimestamp: UInt32,
        extensions: RTPHeaderExtensions? = nil
    ) {
        self.ssrc = ssrc
        self.payloadType = payloadType
        self.nextSequenceNumber = initialSequenceNumber
        self.nextTimestamp = initialTimestamp
        self.extensions = extensions
    }

    /// The header for the packet of the current frame, then advances by one packet and `samples`
    /// timestamp units (960 for a 20 ms Opus frame). Allocation-free when `extensions` is unshared.
    public mutating func makeHeader(samples: UInt32) -> RTPHeader {
        let header = RTPHeader(
            marker: talkspurtStart, payloadType: payloadType, sequenceNumber: nextSequenceNumber,
            timestamp: nextTimestamp, ssrc: ssrc, extensions: extensions)
        talkspurtStart = false
        lastTimestampSent = nextTimestamp
        nextSequenceNumber &+= 1
        nextTimestamp &+= samples
        return header
    }

    /// The encoded header of this stream's packets for `writePacket` (build once; rebuild it after
    /// changing `extensions`). `audioLevelID` names the extension element `writePacket` updates.
    public func makeTemplate(audioLevelID: UInt8? = nil) throws(RTPSerializeError) -> RTPHeaderTemplate {
        try RTPHeaderTemplate(
            header: RTPHeader(
                payloadType: payloadType, sequenceNumber: nextSequenceNumber, timestamp: nextTimestamp, ssrc: ssrc,
                extensions: extensions),
            audioLevelID: audioLevelID)
    }

    /// Writes the packet of the current frame from `template` (made by `makeTemplate`) and `payload`,
    /// then advances like `makeHeader`; returns the packet length. No encoding per field, no allocation.
    public mutating func writePacket(
        payload: UnsafeRawBufferPointer, samples: UInt32, audioLevel: RTPAudioLevel? = nil,
        template: RTPHeaderTemplate, into buffer: UnsafeMutableRawBufferPointer
    ) throws(RTPSerializeError) -> Int {
        let count = try template.write(
            sequenceNumber: nextSequenceNumber, timestamp: nextTimestamp, marker: talkspurtStart,
            audioLevel: audioLevel, payload: payload, into: buffer)
        talkspurtStart = false
        lastTimestampSent = nextTimestamp
        nextSequenceNumber &+= 1
        nextTimestamp &+= samples
        return count
    }

    /// The header of a packet of another format on this stream (RFC 4733 telephone-event): the next
    /// sequence number with `payloadType`, `timestamp` and `marker` given. The audio timestamp does not
    /// move (call `skipFrame` for the frame the event replaces).
    public mutating func makeHeader(payloadType: UInt8, timestamp: UInt32, marker: Bool) -> RTPHeader {
        let header = RTPHeader(
            marker: marker, payloadType: payloadType, sequenceNumber: nextSequenceNumber, timestamp: timestamp,
            ssrc: ssrc, extensions: extensions)
        lastTimestampSent = timestamp
        nextSequenceNumber &+= 1
        return header
    }

    /// A frame period without a packet (DTX): the timestamp advances, the sequence number does not,
    /// and the next packet starts a talkspurt.
    public mutating func skipFrame(samples: UInt32) {
        nextTimestamp &+= samples
        talkspurtStart = true
    }

    /// Counts a packet actually handed to the network (for `MediaStats` and RTCP sender reports).
    public mutating func recordSent(headerBytes: Int, payloadBytes: Int) {
        packetsSent += 1
        headerBytesSent += UInt64(headerBytes)
        payloadBytesSent += UInt64(payloadBytes)
    }
}
