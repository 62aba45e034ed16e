import Testing

@testable import PolyNet

@Suite struct DemuxTests {
    @Test func firstByteRangesFollowRFC7983() {
        for byte in UInt8(0)...3 { #expect(DatagramKind.classify(firstByte: byte) == .stun) }
        for byte in UInt8(20)...63 { #expect(DatagramKind.classify(firstByte: byte) == .dtls) }
        for byte in UInt8(128)...191 { #expect(DatagramKind.classify(firstByte: byte) == .rtp) }
        for byte in UInt8(64)...79 { #expect(DatagramKind.classify(firstByte: byte) == .turnChannel) }
        for byte: UInt8 in [4, 15, 16, 80, 127, 192, 255] {
            #expect(![.stun, .dtls, .rtp].contains(DatagramKind.classify(firstByte: byte)))
        }
    }

    @Test func rtcpIsToldFromRTPByPacketType() {
        #expect(DatagramKind.classify([0x80, 111, 0, 1]) == .rtp)  // Opus PT 111
        #expect(DatagramKind.classify([0x80, 0xE0, 0, 1]) == .rtp)  // marker bit + PT 96 = 224: RTP
        #expect(DatagramKind.classify([0x81, 200, 0, 6]) == .rtcp)  // sender report
        #expect(DatagramKind.classify([0x81, 201, 0, 1]) == .rtcp)  // receiver report
        #expect(DatagramKind.classify([0x81, 223, 0, 1]) == .rtcp)
        #expect(DatagramKind.classify([0x80]) == .rtp)
        #expect(DatagramKind.classify([]) == .unknown)
        #expect(DatagramKind.classify([0x00, 0x01, 0, 0]) == .stun)
        #expect(DatagramKind.classify([22, 0xFE, 0xFD]) == .dtls)
    }
}
