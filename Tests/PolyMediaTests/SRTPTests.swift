import CNSS
import Testing

@testable import PolyMedia

/// Known answers from libsrtp's validation vectors (test/srtp_driver.c, `srtp_validate` and
/// `srtp_validate_gcm`): SSRC 0xcafebabe, sequence 0x1234, 16 bytes of 0xab payload.
@Suite struct SRTPTests {
    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    static let rtpPlaintext = hex("800f1234decafbadcafebabe" + String(repeating: "ab", count: 16))
    static let rtcpPlaintext = hex("81c8000bcafebabe" + String(repeating: "ab", count: 16))

    /// Keying material whose local (sending) and remote keys are the same test key.
    static func material(_ profile: SRTPProfile, key: String, salt: String) throws -> SRTPKeyingMaterial {
        try SRTPKeyingMaterial(
            profile: profile, localMasterKey: hex(key), localMasterSalt: hex(salt), remoteMasterKey: hex(key),
            remoteMasterSalt: hex(salt))
    }

    struct Vector: Sendable {
        let profile: SRTPProfile
        let key: String
        let salt: String
        let srtp: String
        let srtcp: String
    }

    static let vectors = [
        Vector(
            profile: .aes128CmSha1_80, key: "e1f97a0d3e018be0d64fa32c06de4139", salt: "0ec675ad498afeebb6960b3aabe6",
            srtp: "800f1234decafbadcafebabe4e55dc4ce79978d88ca4d215949d2402b78d6acc99ea179b8dbb",
            srtcp: "81c8000bcafebabe7128035be487b9bdbef89041f977a5a880000001993e08cd54d6c1230798"),
        Vector(
            profile: .aeadAes128Gcm, key: "000102030405060708090a0b0c0d0e0f", salt: "a0a1a2a3a4a5a6a7a8a9aaab",
            srtp: "800f1234decafbadcafebabec5002ede04cfdd2eb91159e0880aa06ed2976826f796b201df3131a127e8a392",
            srtcp: "81c8000bcafebabec98b8b5df0392a55852b6c21ac8e7025c52c6fbea2b3b446ea31123ba88ce61e80000001"),
    ]

    @Test(arguments: vectors) func knownAnswers(_ vector: Vector) throws {
        let keys = try Self.material(vector.profile, key: vector.key, salt: vector.salt)
        let sender = try SRTPSession(keyingMaterial: keys)
        let receiver = try SRTPSession(keyingMaterial: keys)

        var rtp = Self.rtpPlaintext
        try sender.protectRTP(&rtp)
        #expect(rtp == Self.hex(vector.srtp))
        try receiver.unprotectRTP(&rtp)
        #expect(rtp == Self.rtpPlaintext)

        var rtcp = Self.rtcpPlaintext
        try sender.protectRTCP(&rtcp)
        #expect(rtcp == Self.hex(vector.srtcp))
        try receiver.unprotectRTCP(&rtcp)
        #expect(rtcp == Self.rtcpPlaintext)
        #expect(receiver.stats.rtpUnprotected == 1 && receiver.stats.rtcpUnprotected == 1)
    }

    @Test(arguments: [SRTPProfile.aes128CmSha1_80, .aeadAes128Gcm]) func tamperedAndReplayedAreRejected(
        _ profile: SRTPProfile
    ) throws {
        let block = (0..<profile.exportedKeyingMaterialLength).map { UInt8($0 * 7 & 0xFF) }
        let client = try SRTPSession(
            keyingMaterial: SRTPKeyingMaterial(profile: profile, exportedKeyingMaterial: block, role: .client))
        let server = try SRTPSession(
            keyingMaterial: SRTPKeyingMaterial(profile: profile, exportedKeyingMaterial: block, role: .server))

        var packet = Self.rtpPlaintext
        try client.protectRTP(&packet)
        #expect(packet.count == Self.rtpPlaintext.count + profile.rtpOverhead)
        var tampered = packet
        tampered[14] ^= 0x01
        #expect(throws: SRTPError.authenticationFailed) { try server.unprotectRTP(&tampered) }

        var good = packet
        try server.unprotectRTP(&good)
        #expect(good == Self.rtpPlaintext)
        var replay = packet
        #expect(throws: SRTPError.replayed) { try server.unprotectRTP(&replay) }

        var rtcp = Self.rtcpPlaintext
        try server.protectRTCP(&rtcp)
        var badRTCP = rtcp
        badRTCP[badRTCP.count - 1] ^= 0x80
        #expect(throws: SRTPError.authenticationFailed) { try client.unprotectRTCP(&badRTCP) }
        var rtcpCopy = rtcp
        try client.unprotectRTCP(&rtcpCopy)
        #expect(rtcpCopy == Self.rtcpPlaintext)
        #expect(throws: SRTPError.replayed) { try client.unprotectRTCP(&rtcp) }

        #expect(server.stats.authenticationFailures == 1 && server.stats.replayFailures == 1)
        #expect(client.stats.authenticationFailures == 1 && client.stats.replayFailures == 1)
    }

    @Test(arguments: [SRTPProfile.aes128CmSha1_80, .aeadAes128Gcm]) func mirroredSessionsRoundTripManyPackets(
        _ profile: SRTPProfile
    ) throws {
        let keys = try SRTPKeyingMaterial(
            profile: profile, localMasterKey: Array(repeating: 1, count: 16),
            localMasterSalt: Array(repeating: 2, count: profile.saltLength),
            remoteMasterKey: Array(repeating: 3, count: 16),
            remoteMasterSalt: Array(repeating: 4, count: profile.saltLength))
        let a = try SRTPSession(keyingMaterial: keys)
        let b = try SRTPSession(keyingMaterial: keys.mirrored)
        var stream = RTPOutgoingStream(ssrc: 42, payloadType: 111, initialSequenceNumber: 65530, initialTimestamp: 0)
        var buffer = [UInt8](repeating: 0, count: 1500)
        for i in 0..<20 {
            let payload = [UInt8](repeating: UInt8(i), count: 100)
            let header = stream.makeHeader(samples: 960)
            try buffer.withUnsafeMutableBytes { buffer in
                let length = try payload.withUnsafeBytes { try header.write(payload: $0, into: buffer) }
                let protected = try a.protectRTP(buffer, length: length)
                #expect(protected == length + profile.rtpOverhead)
                let clear = try b.unprotectRTP(buffer, length: protected)
                let view = try RTPPacketView(parsing: Array(buffer[0..<clear]))
                #expect(view.sequenceNumber == header.sequenceNumber)
                #expect(Array(view.payload) == payload)
            }
        }
        // The other direction uses the other key.
        var reverse = Self.rtpPlaintext
        try b.protectRTP(&reverse)
        try a.unprotectRTP(&reverse)
        #expect(reverse == Self.rtpPlaintext)
        // A session does not accept its own output (different keys per direction).
        var own = Self.rtpPlaintext
        own[3] = 0x99  // a sequence number `a` has not received yet
        try a.protectRTP(&own)
        #expect(throws: SRTPError.authenticationFailed) { try a.unprotectRTP(&own) }
    }

    @Test func exportedBlockLayoutFollowsRFC5764() throws {
        let block = (0..<60).map { UInt8($0) }
        let client = try SRTPKeyingMaterial(profile: .aes128CmSha1_80, exportedKeyingMaterial: block, role: .client)
        #expect(client.localMasterKey == Array(0..<16))
        #expect(client.remoteMasterKey == Array(16..<32))
        #expect(client.localMasterSalt == Array(32..<46))
        #expect(client.remoteMasterSalt == Array(46..<60))
        let server = try SRTPKeyingMaterial(profile: .aes128CmSha1_80, exportedKeyingMaterial: block, role: .server)
        #expect(server.localMasterKey == client.remoteMasterKey && server.localMasterSalt == client.remoteMasterSalt)
        let gcm = try SRTPKeyingMaterial(
            profile: .aeadAes128Gcm, exportedKeyingMaterial: (0..<56).map { UInt8($0) }, role: .client)
        #expect(gcm.localMasterSalt == Array(32..<44) && gcm.remoteMasterSalt == Array(44..<56))
        #expect(throws: SRTPKeyingMaterial.Error.wrongLength(expected: 56, actual: 60)) {
            try SRTPKeyingMaterial(profile: .aeadAes128Gcm, exportedKeyingMaterial: block, role: .client)
        }
        #expect(!client.description.contains("15"))
        #expect(SRTPProfile(dtlsProfileID: 0x0007) == .aeadAes128Gcm)
        #expect(SRTPProfile.aes128CmSha1_80.dtlsProfileID == 0x0001)
    }

    @Test func theLibraryCanBePreparedAheadOfTheFirstSession() throws {
        // What a shell calls off its event loop; repeated calls are free and sessions still work after it.
        #expect(SRTPSession.prepareLibrary())
        #expect(SRTPSession.prepareLibrary())
        _ = try SRTPSession(
            keyingMaterial: Self.material(
                .aes128CmSha1_80, key: String(repeating: "e1", count: 16), salt: String(repeating: "0b", count: 14)))
    }

    @Test func bufferWithoutRoomForTheTagIsRefused() throws {
        let keys = try Self.material(
            .aes128CmSha1_80, key: "e1f97a0d3e018be0d64fa32c06de4139", salt: "0ec675ad498afeebb6960b3aabe6")
        let session = try SRTPSession(keyingMaterial: keys)
        var exact = Self.rtpPlaintext
        #expect(throws: SRTPError.bufferTooSmall(needed: 38, available: 28)) {
            try exact.withUnsafeMutableBytes { buffer in
                Result { () throws(SRTPError) -> Int in try session.protectRTP(buffer, length: 28) }
            }.get()
        }
        var short: [UInt8] = [0x80, 0x0f, 0x12]
        #expect(throws: SRTPError.self) { try session.unprotectRTP(&short) }
        #expect(session.stats.otherFailures == 2)
    }

    /// The process's own NSS context (see `SRTPSession`) outlives every session: without it libsrtp2's
    /// last context shuts NSS down when the last session is freed.
    @Test func nssStaysInitialisedAfterTheLastSessionIsFreed() throws {
        let keys = try SRTPKeyingMaterial(
            profile: .aeadAes128Gcm, localMasterKey: Array(repeating: 5, count: 16),
            localMasterSalt: Array(repeating: 6, count: 12), remoteMasterKey: Array(repeating: 7, count: 16),
            remoteMasterSalt: Array(repeating: 8, count: 12))
        do { _ = try SRTPSession(keyingMaterial: keys) }
        #expect(NSS_IsInitialized() != 0)
    }
}
