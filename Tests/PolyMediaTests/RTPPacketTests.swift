import Testing

@testable import PolyMedia

@Suite struct RTPPacketTests {
    /// RFC 3550 header: V=2, M=1, PT=111, seq 0x1234, ts 0xDECAFBAD, SSRC 0xCAFEBABE, payload 3 bytes.
    let simple: [UInt8] = [0x80, 0xEF, 0x12, 0x34, 0xDE, 0xCA, 0xFB, 0xAD, 0xCA, 0xFE, 0xBA, 0xBE, 1, 2, 3]

    @Test func parsesFixedHeader() throws {
        let view = try RTPPacketView(parsing: simple)
        #expect(view.marker)
        #expect(view.payloadType == 111)
        #expect(view.sequenceNumber == 0x1234)
        #expect(view.timestamp == 0xDECA_FBAD)
        #expect(view.ssrc == 0xCAFE_BABE)
        #expect(view.headerLength == 12)
        #expect(Array(view.payload) == [1, 2, 3])
        #expect(view.extensionElements == nil)
    }

    @Test func roundTripsWithCSRCsExtensionsAndPadding() throws {
        var extensions = RTPHeaderExtensions(form: .oneByte)
        try extensions.appendMID("audio0", id: 1)
        try extensions.setAudioLevel(RTPAudioLevel(voiceActivity: true, level: 30), id: 2)
        let packet = RTPPacket(
            header: RTPHeader(
                marker: false, payloadType: 96, sequenceNumber: 65535, timestamp: 4_000_000_000, ssrc: 7,
                csrcs: [11, 22], extensions: extensions),
            payload: Array(0..<100), paddingCount: 3)
        let bytes = try packet.serialized()
        #expect(bytes.count == 12 + 8 + 4 + 12 + 100 + 3)
        #expect(bytes.count % 4 == 3)
        let view = try RTPPacketView(parsing: bytes)
        #expect(view.csrcCount == 2 && view.csrc(0) == 11 && view.csrc(1) == 22)
        #expect(view.paddingCount == 3)
        #expect(view.extensionProfile == 0xBEDE)
        #expect(view.extensionElements?.mid(id: 1) == "audio0")
        #expect(view.extensionElements?.audioLevel(id: 2) == RTPAudioLevel(voiceActivity: true, level: 30))
        #expect(try RTPPacket(parsing: bytes) == packet)
    }

    @Test func twoByteExtensionsRoundTrip() throws {
        var extensions = RTPHeaderExtensions(form: .twoByte(appBits: 0))
        try extensions.append(id: 200, data: [UInt8](repeating: 9, count: 20))
        try extensions.append(id: 3, data: [UInt8]())
        let packet = RTPPacket(
            header: RTPHeader(payloadType: 111, sequenceNumber: 1, timestamp: 2, ssrc: 3, extensions: extensions),
            payload: [0xAA])
        let view = try RTPPacketView(parsing: try packet.serialized())
        #expect(view.extensionProfile == 0x1000)
        let elements = try #require(view.extensionElements).map { ($0.id, $0.dataRange.count) }
        #expect(elements.map(\.0) == [200, 3])
        #expect(elements.map(\.1) == [20, 0])
        #expect(try RTPPacket(parsing: try packet.serialized()) == packet)
    }

    @Test func oneByteExtensionStopsAtID15AndSkipsPadding() throws {
        // 0xBEDE block: padding byte, element id 1 len 1, id 15 terminates (rest ignored).
        let bytes: [UInt8] = [0x90, 111, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0xBE, 0xDE, 0, 1, 0x00, 0x10, 0x55, 0xF3]
        let view = try RTPPacketView(parsing: bytes)
        #expect(view.extensionElements.map { Array($0).map(\.id) } == [1])
        #expect(view.extensionElements?.data(id: 1).map(Array.init) == [0x55])
    }

    @Test func audioLevelUpdateInPlace() throws {
        var extensions = RTPHeaderExtensions()
        try extensions.setAudioLevel(RTPAudioLevel(voiceActivity: false, level: 127), id: 5)
        try extensions.setAudioLevel(RTPAudioLevel(voiceActivity: true, level: 10), id: 5)
        #expect(extensions.encodedElements == [0x50, 0x8A])
    }

    @Test func rejectsInvalidExtensionElements() {
        var extensions = RTPHeaderExtensions(form: .oneByte)
        #expect(throws: RTPHeaderExtensions.ElementError.invalidID(15)) { try extensions.append(id: 15, data: [1]) }
        #expect(throws: RTPHeaderExtensions.ElementError.invalidLength(17)) {
            try extensions.append(id: 1, data: [UInt8](repeating: 0, count: 17))
        }
    }

    @Test func typedErrorsForMalformedPackets() {
        #expect(throws: RTPParseError.shorterThanFixedHeader(length: 11)) {
            try RTPPacketView(parsing: Array(simple.prefix(11)))
        }
        var v1 = simple
        v1[0] = 0x40
        #expect(throws: RTPParseError.unsupportedVersion(1)) { try RTPPacketView(parsing: v1) }
        var csrc = simple
        csrc[0] = 0x82
        #expect(throws: RTPParseError.csrcListTruncated(count: 2)) { try RTPPacketView(parsing: csrc) }
        var padZero = simple
        padZero[0] = 0xA0
        padZero[padZero.count - 1] = 0
        #expect(throws: RTPParseError.invalidPadding(count: 0)) { try RTPPacketView(parsing: padZero) }
        var padTooMuch = simple
        padTooMuch[0] = 0xA0
        padTooMuch[padTooMuch.count - 1] = 4
        #expect(throws: RTPParseError.invalidPadding(count: 4)) { try RTPPacketView(parsing: padTooMuch) }
        var ext = simple
        ext[0] = 0x90
        #expect(throws: RTPParseError.headerExtensionTruncated) { try RTPPacketView(parsing: ext) }
        let element: [UInt8] = [0x90, 111, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0xBE, 0xDE, 0, 1, 0x13, 0, 0, 0]
        #expect(throws: RTPParseError.headerExtensionElementTruncated(id: 1)) { try RTPPacketView(parsing: element) }
    }

    /// The fixed-header fields are read on demand: one load over contiguous bytes, byte by byte
    /// otherwise; both must agree, also for a slice that does not start at index 0.
    @Test func fieldsReadTheSameFromAnyByteCollection() throws {
        var extensions = RTPHeaderExtensions(form: .oneByte)
        try extensions.setAudioLevel(RTPAudioLevel(voiceActivity: true, level: 9), id: 4)
        let packet = RTPPacket(
            header: RTPHeader(
                marker: true, payloadType: 0x55, sequenceNumber: 0xFEDC, timestamp: 0x8765_4321, ssrc: 0x0102_0304,
                csrcs: [5], extensions: extensions),
            payload: [7, 8, 9], paddingCount: 2)
        let bytes = try packet.serialized()
        let shifted = ([0xEE, 0xEE, 0xEE] + bytes)[3...]
        func fields<B>(_ view: RTPPacketView<B>) -> [UInt64] {
            [
                view.marker ? 1 : 0, UInt64(view.payloadType), UInt64(view.sequenceNumber), UInt64(view.timestamp),
                UInt64(view.ssrc), UInt64(view.payloadRange.count), UInt64(view.audioLevel(id: 4)?.level ?? 0),
            ]
        }
        let expected: [UInt64] = [1, 0x55, 0xFEDC, 0x8765_4321, 0x0102_0304, 3, 9]
        #expect(fields(try RTPPacketView(parsing: bytes)) == expected)
        #expect(fields(try RTPPacketView(parsing: shifted)) == expected)
        #expect(fields(try RTPPacketView(parsing: bytes.lazy.map { $0 })) == expected)
        let rawFields = try bytes.withUnsafeBytes { raw in fields(try RTPPacketView(parsing: raw)) }
        #expect(rawFields == expected)
        #expect(try RTPPacketView(parsing: shifted).payloadRange == 27..<30)
    }

    @Test func extensionBlocksMustFitBeforeThePadding() {
        // Announces 2 words of extension data where 1 word remains.
        let long: [UInt8] = [0x90, 111, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0xBE, 0xDE, 0, 2, 0x10, 0x55, 0, 0]
        #expect(throws: RTPParseError.headerExtensionTruncated) { try RTPPacketView(parsing: long) }
        // 1 word of extension data, but its last 2 bytes are padding (P bit, padding count 2).
        let intoPadding: [UInt8] = [0xB0, 111, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0xBE, 0xDE, 0, 1, 0x10, 0x55, 0, 2]
        #expect(throws: RTPParseError.headerExtensionTruncated) { try RTPPacketView(parsing: intoPadding) }
    }

    @Test func truncatedTwoByteElementsAreRefused() {
        // Element 3 announces 5 data bytes; 2 remain in the block.
        let data: [UInt8] = [0x90, 111, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0x10, 0x00, 0, 1, 3, 5, 0xAA, 0xBB]
        #expect(throws: RTPParseError.headerExtensionElementTruncated(id: 3)) { try RTPPacketView(parsing: data) }
        // Element 7 starts in the block's last byte: its length byte is missing.
        let length: [UInt8] = [0x90, 111, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0x10, 0x00, 0, 1, 0, 0, 0, 7]
        #expect(throws: RTPParseError.headerExtensionElementTruncated(id: 7)) { try RTPPacketView(parsing: length) }
    }

    @Test func writeIntoSmallBufferFails() throws {
        let packet = try RTPPacket(parsing: simple)
        var small = [UInt8](repeating: 0, count: 14)
        #expect(throws: RTPSerializeError.bufferTooSmall(needed: 15, available: 14)) {
            try small.withUnsafeMutableBytes { buffer in
                Result { () throws(RTPSerializeError) -> Int in try packet.write(into: buffer) }
            }.get()
        }
        #expect(try packet.serialized() == simple)
    }
}
