import PolyNet
import Testing

@Suite struct TransportAddressTests {
    @Test func parsesAndFormatsIPv4() throws {
        let address = try #require(TransportAddress("192.168.1.20:5004"))
        #expect(address.ip.bytes == [192, 168, 1, 20])
        #expect(address.port == 5004)
        #expect(address.family == .v4)
        #expect(address.description == "192.168.1.20:5004")
    }

    @Test func parsesAndFormatsIPv6() throws {
        let address = try #require(TransportAddress("[2001:db8::1]:443"))
        #expect(address.ip.bytes.count == 16)
        #expect(address.ip.bytes[0] == 0x20 && address.ip.bytes[15] == 1)
        #expect(address.description == "[2001:db8::1]:443")
        #expect(IPAddress("::1") == .loopbackV6)
        #expect(IPAddress("::1")?.isLoopback == true)
        #expect(IPAddress("fe80::1")?.isLinkLocal == true)
    }

    @Test func rejectsMalformed() {
        for text in ["", "1.2.3.4", "1.2.3:80", "1.2.3.4:70000", "[::1:80", "::1:80x", "host:80", "[::1]80", "::1:80"] {
            #expect(TransportAddress(text) == nil, "\(text)")
        }
        #expect(IPAddress(bytes: [1, 2, 3]) == nil)
        #expect(IPAddress("1.2.3.4\u{0}junk") == nil)
    }

    @Test func hashableAsDictionaryKey() throws {
        let a = try #require(TransportAddress("10.0.0.1:1"))
        let b = try #require(TransportAddress("10.0.0.1:1"))
        #expect(Set([a, b]).count == 1)
    }
}
