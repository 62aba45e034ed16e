import Testing

@testable import PolyNet

@Suite struct ICEServerURLTests {
    @Test func parsesStunAndTurnURLs() throws {
        let google = try #require(ICEServerURL("stun:stun.l.google.com:19302"))
        #expect(google.scheme == .stun && google.host == "stun.l.google.com" && google.port == 19302)
        #expect(google.literalAddress == nil)
        #expect(ICEServerURL("stun:stun.example.org")?.port == 3478)
        #expect(ICEServerURL("stuns:stun.example.org")?.port == 5349)
        let v6 = try #require(ICEServerURL("stun:[2001:db8::1]:3479"))
        #expect(v6.literalAddress == TransportAddress("[2001:db8::1]:3479"))
        #expect(ICEServerURL("stun:127.0.0.1:3478")?.literalAddress == TransportAddress("127.0.0.1:3478"))
        let turn = try #require(ICEServerURL("turn:turn.example.org:443?transport=TCP"))
        #expect(turn.scheme == .turn && turn.transport == "tcp" && turn.port == 443)
    }

    @Test func rejectsMalformed() {
        for text in [
            "", "stun", "http://x", "stun:", "stun:host:0", "stun:host:99999", "stun:[::1", "stun:::1", "turn:h?x=1",
        ] {
            #expect(ICEServerURL(text) == nil, "\(text)")
        }
    }
}
