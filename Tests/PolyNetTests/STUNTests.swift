import PolyCore
import Testing

@testable import PolyNet

/// Hex text (whitespace ignored) to bytes.
func hexBytes(_ text: String) -> [UInt8] {
    let digits = text.filter { !$0.isWhitespace }
    var bytes: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        bytes.append(UInt8(digits[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}

/// RFC 5769 test vectors (the RFC's own bytes; padding of text attributes is 0x20 there).
enum RFC5769 {
    static let password = Array("VOkJxbRl1RmTxUk/WvJxBt".utf8)
    static let request = hexBytes(
        """
        000100582112a442b7e7a701bc34d686fa87dfae802200105354554e20746573742063
        6c69656e74002400046e0001ff80290008932ff9b151263b36000600096576746a3a68
        367659202020000800149aeaa70cbfd8cb56781ef2b5b2d3f249c1b571a280280004e5
        7a3bcf
        """)
    static let ipv4Response = hexBytes(
        """
        0101003c2112a442b7e7a701bc34d686fa87dfae8022000b7465737420766563746f72
        20002000080001a147e112a643000800142b91f599fd9e90c38c7489f92af9ba53f06b
        e7d780280004c07d4c96
        """)
    static let ipv6Response = hexBytes(
        """
        010100482112a442b7e7a701bc34d686fa87dfae8022000b7465737420766563746f72
        20002000140002a1470113a9faa5d3f179bc25f4b5bed2b9d900080014a382954e4be6
        7bf11784c97c8292c275bfe3ed4180280004c8fb0b4c
        """)
}

@Suite struct STUNTests {
    @Test func crc32KnownAnswer() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test func hmacSHA1KnownAnswer() {
        // RFC 2202 test case 2.
        let mac = HMACSHA1.mac(key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8))
        #expect(mac == hexBytes("effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"))
    }

    @Test func rfc5769SampleRequest() throws {
        let message = try STUNMessage(decoding: RFC5769.request)
        #expect(message.messageClass == .request)
        #expect(message.method == .binding)
        #expect(message.transactionID.bytes == hexBytes("b7e7a701bc34d686fa87dfae"))
        #expect(message.username == "evtj:h6vY")
        #expect(message.priority == 0x6E00_01FF)
        #expect(message.iceControlled == 0x932F_F9B1_5126_3B36)
        #expect(message.attributes.contains(.software("STUN test client")))
        #expect(message.hasFingerprint)
        #expect(message.verifyIntegrity(of: RFC5769.request, key: RFC5769.password))
        #expect(!message.verifyIntegrity(of: RFC5769.request, key: Array("wrong".utf8)))
    }

    @Test func rfc5769IPv4Response() throws {
        let message = try STUNMessage(decoding: RFC5769.ipv4Response)
        #expect(message.messageClass == .successResponse)
        #expect(message.xorMappedAddress == TransportAddress("192.0.2.1:32853"))
        #expect(message.verifyIntegrity(of: RFC5769.ipv4Response, key: RFC5769.password))
    }

    @Test func rfc5769IPv6Response() throws {
        let message = try STUNMessage(decoding: RFC5769.ipv6Response)
        let expected = TransportAddress("[2001:db8:1234:5678:11:2233:4455:6677]:32853")
        #expect(message.xorMappedAddress == expected)
        #expect(message.verifyIntegrity(of: RFC5769.ipv6Response, key: RFC5769.password))
        // Encoding the same address under the same transaction id gives the RFC's attribute bytes.
        let encoded = STUNMessage(
            messageClass: .successResponse, transactionID: message.transactionID,
            attributes: [.xorMappedAddress(try #require(expected))]
        ).encoded(fingerprint: false)
        #expect(Array(encoded[20...]) == Array(RFC5769.ipv6Response[36..<60]))
    }

    @Test func roundTripWithIntegrityAndFingerprint() throws {
        var random = SeededRandom(seed: 7)
        let original = STUNMessage(
            messageClass: .request, transactionID: .random(using: &random),
            attributes: [
                .username("abcd:efgh"), .priority(1_853_824_767), .iceControlling(0x0102_0304_0506_0708),
                .useCandidate, .errorCode(code: 487, reason: "Role Conflict"),
                .mappedAddress(TransportAddress("10.1.2.3:9")!),
            ])
        let key = Array("secretpassword".utf8)
        let bytes = original.encoded(integrityKey: key)
        #expect(bytes.count % 4 == 0)
        let decoded = try STUNMessage(decoding: bytes)
        #expect(decoded == original)
        #expect(decoded.errorCode?.code == 487)
        #expect(decoded.useCandidate)
        #expect(decoded.hasIntegrity && decoded.hasFingerprint)
        #expect(decoded.verifyIntegrity(of: bytes, key: key))
        #expect(STUNMessage.looksLikeSTUN(bytes))
    }

    @Test func errorResponseClassRoundTrips() throws {
        var random = SeededRandom(seed: 1)
        let message = STUNMessage(messageClass: .errorResponse, transactionID: .random(using: &random))
        let bytes = message.encoded()
        #expect(bytes[0] == 0x01 && bytes[1] == 0x11)
        #expect(try STUNMessage(decoding: bytes).messageClass == .errorResponse)
        let indication = STUNMessage(messageClass: .indication, transactionID: message.transactionID)
        #expect(try STUNMessage(decoding: indication.encoded()).messageClass == .indication)
    }

    @Test func unknownAttributesAreSkippedOrReported() throws {
        var random = SeededRandom(seed: 2)
        let message = STUNMessage(
            messageClass: .request, transactionID: .random(using: &random),
            attributes: [.other(type: 0xC001, value: [1, 2, 3]), .other(type: 0x7FFE, value: []), .priority(5)])
        let decoded = try STUNMessage(decoding: message.encoded())
        #expect(decoded.attributes == [.priority(5)])
        #expect(decoded.unknownRequiredAttributes == [0x7FFE])
    }

    @Test func rejectsMalformedWithTypedErrors() {
        var bytes = RFC5769.ipv4Response
        #expect(throws: STUNError.truncated) { try STUNMessage(decoding: Array(bytes.prefix(19))) }
        #expect(throws: STUNError.truncated) { try STUNMessage(decoding: Array(bytes.dropLast(4))) }
        bytes[0] = 0xC1
        #expect(throws: STUNError.notSTUN) { try STUNMessage(decoding: bytes) }
        bytes = RFC5769.ipv4Response
        bytes[4] = 0
        #expect(throws: STUNError.badMagicCookie) { try STUNMessage(decoding: bytes) }
        bytes = RFC5769.ipv4Response
        bytes[3] = 0x3D
        #expect(throws: STUNError.badLength) { try STUNMessage(decoding: bytes) }
        bytes = RFC5769.ipv4Response
        bytes[bytes.count - 1] ^= 1
        #expect(throws: STUNError.badFingerprint) { try STUNMessage(decoding: bytes) }
        bytes = RFC5769.ipv4Response
        bytes[23] = 0xFF  // SOFTWARE length runs past the end
        #expect(throws: STUNError.attributeOverrun(type: 0x8022)) { try STUNMessage(decoding: bytes) }
        bytes = RFC5769.ipv4Response
        bytes[41] = 0x05  // XOR-MAPPED-ADDRESS family
        #expect(throws: (any Error).self) { try STUNMessage(decoding: bytes) }
    }

    @Test func tamperedBodyFailsIntegrity() throws {
        var bytes = RFC5769.request
        bytes[45] ^= 0x01  // inside PRIORITY; strip FINGERPRINT so only integrity can catch it
        bytes = Array(bytes.dropLast(8))
        bytes[3] = UInt8(bytes.count - 20)
        let message = try STUNMessage(decoding: bytes)
        #expect(!message.hasFingerprint)
        #expect(!message.verifyIntegrity(of: bytes, key: RFC5769.password))
    }
}
