import Testing

@testable import PolyMedia

/// The extension element offsets recorded while parsing agree with walking the block.
@Suite struct RTPExtensionLookupTests {
    func packet(extensions: RTPHeaderExtensions) throws -> [UInt8] {
        try RTPPacket(
            header: RTPHeader(payloadType: 111, sequenceNumber: 1, timestamp: 2, ssrc: 3, extensions: extensions),
            payload: [1, 2, 3]
        ).serialized()
    }

    @Test func oneByteLookupsMatchTheWalk() throws {
        var extensions = RTPHeaderExtensions(form: .oneByte)
        try extensions.appendMID("audio0", id: 14)
        try extensions.setAudioLevel(RTPAudioLevel(voiceActivity: true, level: 30), id: 1)
        try extensions.append(id: 7, data: [9, 8, 7, 6])
        try extensions.append(id: 7, data: [5])  // a repeated ID: the first element wins, as in the walk
        let view = try RTPPacketView(parsing: try packet(extensions: extensions))
        #expect(view.extensionIndex.isComplete)
        #expect(view.mid(id: 14) == "audio0")
        #expect(view.audioLevel(id: 1) == RTPAudioLevel(voiceActivity: true, level: 30))
        #expect(view.audioLevel(id: 7) == nil)  // four bytes: not an audio level
        let elements = try #require(view.extensionElements)
        for id in UInt8(0)...20 {
            #expect(view.extensionDataRange(id: id) == elements.first { $0.id == id }?.dataRange)
        }
    }

    @Test func twoByteIDsAbove15FallBackToTheWalk() throws {
        var extensions = RTPHeaderExtensions(form: .twoByte(appBits: 0))
        try extensions.append(id: 200, data: [UInt8](repeating: 9, count: 20))
        try extensions.append(id: 3, data: [0x85])
        try extensions.append(id: 15, data: [UInt8]())
        let view = try RTPPacketView(parsing: try packet(extensions: extensions))
        #expect(!view.extensionIndex.isComplete)
        #expect(view.extensionDataRange(id: 200)?.count == 20)
        #expect(view.extensionDataRange(id: 15)?.count == 0)
        #expect(view.audioLevel(id: 3) == RTPAudioLevel(voiceActivity: true, level: 5))
        #expect(view.extensionDataRange(id: 4) == nil)
    }

    @Test func elementsBeyondTheRecordableOffsetFallBackToTheWalk() throws {
        var extensions = RTPHeaderExtensions(form: .oneByte)
        for id in UInt8(1)...13 { try extensions.append(id: 1 + id % 13, data: [UInt8](repeating: id, count: 16)) }
        try extensions.append(id: 14, data: [0x0A])  // starts at offset 13 * 17 = 221
        for _ in 0..<3 { try extensions.append(id: 2, data: [UInt8](repeating: 0, count: 16)) }
        try extensions.append(id: 13, data: [0x42])  // only earlier id 13 is recorded (first wins)
        var late = RTPHeaderExtensions(form: .oneByte)
        for _ in 0..<16 { try late.append(id: 2, data: [UInt8](repeating: 0, count: 16)) }
        try late.setAudioLevel(RTPAudioLevel(voiceActivity: false, level: 99), id: 9)  // offset 272
        let view = try RTPPacketView(parsing: try packet(extensions: extensions))
        #expect(view.audioLevel(id: 14) == RTPAudioLevel(voiceActivity: false, level: 10))
        let lateView = try RTPPacketView(parsing: try packet(extensions: late))
        #expect(!lateView.extensionIndex.isComplete)
        #expect(lateView.audioLevel(id: 9) == RTPAudioLevel(voiceActivity: false, level: 99))
        #expect(lateView.extensionDataRange(id: 4) == nil)
    }

    @Test func otherProfilesHaveNoElements() throws {
        let bytes: [UInt8] = [0x90, 111, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0x12, 0x34, 0, 1, 0x10, 0x55, 0, 0]
        let view = try RTPPacketView(parsing: bytes)
        #expect(view.extensionDataRange(id: 1) == nil)
        #expect(view.audioLevel(id: 1) == nil)
    }
}

@Suite struct RTPHeaderTemplateTests {
    @Test func writesTheSameBytesAsTheHeader() throws {
        var extensions = RTPHeaderExtensions(form: .oneByte)
        try extensions.appendMID("0", id: 2)
        try extensions.setAudioLevel(RTPAudioLevel(voiceActivity: false, level: 127), id: 1)
        let template = try RTPHeaderTemplate(
            header: RTPHeader(
                payloadType: 111, sequenceNumber: 0, timestamp: 0, ssrc: 0xCAFE_BABE, extensions: extensions),
            audioLevelID: 1)
        let payload: [UInt8] = Array(0..<50)
        var expectedExtensions = extensions
        try expectedExtensions.setAudioLevel(RTPAudioLevel(voiceActivity: true, level: 42), id: 1)
        let expected = try RTPPacket(
            header: RTPHeader(
                marker: true, payloadType: 111, sequenceNumber: 0xFFFF, timestamp: 0xDEAD_BEEF, ssrc: 0xCAFE_BABE,
                extensions: expectedExtensions),
            payload: payload
        ).serialized()
        var buffer = [UInt8](repeating: 0xEE, count: 200)
        let count = try buffer.withUnsafeMutableBytes { out in
            try payload.withUnsafeBytes { payload in
                try template.write(
                    sequenceNumber: 0xFFFF, timestamp: 0xDEAD_BEEF, marker: true,
                    audioLevel: RTPAudioLevel(voiceActivity: true, level: 42), payload: payload, into: out)
            }
        }
        #expect(Array(buffer.prefix(count)) == expected)
    }

    @Test func rejectsASmallBuffer() throws {
        let template = try RTPHeaderTemplate(
            header: RTPHeader(payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 1))
        var buffer = [UInt8](repeating: 0, count: 14)
        #expect(throws: RTPSerializeError.bufferTooSmall(needed: 15, available: 14)) {
            try buffer.withUnsafeMutableBytes { out in
                try [UInt8](repeating: 1, count: 3).withUnsafeBytes { payload in
                    try template.write(sequenceNumber: 1, timestamp: 2, marker: false, payload: payload, into: out)
                }
            }
        }
    }

    @Test func outgoingStreamWritesLikeMakeHeader() throws {
        var extensions = RTPHeaderExtensions()
        try extensions.setAudioLevel(RTPAudioLevel(voiceActivity: false, level: 127), id: 3)
        var byHeader = RTPOutgoingStream(
            ssrc: 9, payloadType: 111, initialSequenceNumber: 65535, initialTimestamp: 4_294_967_000,
            extensions: extensions)
        var byTemplate = byHeader
        let template = try byTemplate.makeTemplate(audioLevelID: 3)
        let payload: [UInt8] = [7, 7, 7]
        for frame in 0..<3 {
            if frame == 2 {
                byHeader.skipFrame(samples: 960)
                byTemplate.skipFrame(samples: 960)
            }
            var header = byHeader.makeHeader(samples: 960)
            try header.extensions?.setAudioLevel(RTPAudioLevel(voiceActivity: true, level: UInt8(frame)), id: 3)
            let expected = try RTPPacket(header: header, payload: payload).serialized()
            var buffer = [UInt8](repeating: 0, count: 100)
            let count = try buffer.withUnsafeMutableBytes { out in
                try payload.withUnsafeBytes { payload in
                    try byTemplate.writePacket(
                        payload: payload, samples: 960,
                        audioLevel: RTPAudioLevel(voiceActivity: true, level: UInt8(frame)),
                        template: template, into: out)
                }
            }
            #expect(Array(buffer.prefix(count)) == expected)
        }
        #expect(byTemplate.nextSequenceNumber == byHeader.nextSequenceNumber)
        #expect(byTemplate.nextTimestamp == byHeader.nextTimestamp)
    }
}
