import Foundation
import Testing

@testable import PolySignaling

@Suite struct MessageTests {
    private let secret = "tok-0123456789abcdef0123456789abcdef"

    @Test func fullProvisionResponseDecodes() throws {
        let json = """
            {"callId":"call-5f9ec645","future":true,
             "creds":{"provider":"p","connectUrl":"/api/v1/call/call-5f9ec645/sdp","token":"\(secret)",
              "trackName":"agent-audio",
              "iceServers":[{"urls":["stun:a","stun:b"],"username":"u","credential":"c"},{"urls":"turn:x"}],
              "extra":{"eventsUrl":"/e","pullUrl":"/p","renegotiateUrl":"/r","iceRestartUrl":"/i",
                       "resumeGraceSeconds":10,"other":1}}}
            """
        let response = try MessageCoding.decode(ProvisionResponse.self, from: Array(json.utf8))
        #expect(response.callId == "call-5f9ec645")
        #expect(response.creds.token == secret)
        #expect(response.creds.iceServers?.map(\.urls) == [["stun:a", "stun:b"], ["turn:x"]])
        #expect(response.creds.extra?.iceRestartUrl == "/i")
        #expect(response.creds.extra?.resumeGraceSeconds == 10)
    }

    @Test func minimalProvisionResponseDecodes() throws {
        let json = #"{"callId":"c1","creds":{"connectUrl":"/sdp"}}"#
        let response = try MessageCoding.decode(ProvisionResponse.self, from: Array(json.utf8))
        #expect(response.creds.connectUrl == "/sdp")
        #expect(response.creds.token == nil && response.creds.extra == nil && response.creds.iceServers == nil)
    }

    @Test func malformedJSONGivesTypedErrors() {
        #expect(throws: MessageError.invalidJSON) {
            try MessageCoding.decode(ProvisionResponse.self, from: Array("{not json".utf8))
        }
        #expect(throws: MessageError.missingField("creds.connectUrl")) {
            try MessageCoding.decode(ProvisionResponse.self, from: Array(#"{"callId":"c","creds":{}}"#.utf8))
        }
        #expect(throws: MessageError.wrongType("callId")) {
            try MessageCoding.decode(
                ProvisionResponse.self, from: Array(#"{"callId":5,"creds":{"connectUrl":"/"}}"#.utf8))
        }
        #expect(throws: MessageError.missingField("sdp")) {
            try MessageCoding.decode(SDPMessage.self, from: Array("{}".utf8))
        }
    }

    @Test func tokensAreRedactedInDescriptions() throws {
        let creds = CallCredentials(
            connectUrl: "/c", token: secret, iceServers: [ICEServer(urls: ["turn:x"], credential: secret)])
        let response = ProvisionResponse(callId: "c", creds: creds)
        let auth = AuthFrame(token: secret)
        var dumped = ""
        dump(response, to: &dumped)
        for text in [
            "\(response)", String(reflecting: response), "\(creds)", "\(auth)", String(reflecting: auth), dumped,
        ] {
            #expect(!text.contains(secret))
            #expect(!text.contains("0123456789"))
        }
        #expect("\(creds)".contains("tok-…"))
    }

    @Test func turnUsernamesAreRedactedLikeCredentials() {
        // TURN REST usernames are `<expiry>:<name>` and carry the call id.
        let server = ICEServer(urls: ["turn:x"], username: "1700000000:call-5f9ec645", credential: secret)
        var dumped = ""
        dump(server, to: &dumped)
        for text in ["\(server)", String(reflecting: server), dumped] {
            #expect(!text.contains("call-5f9ec645"))
            #expect(!text.contains(secret))
            #expect(text.contains("username: 1700…"))
        }
        #expect("\(ICEServer(urls: ["stun:a"]))".contains("username: nil"))
    }

    @Test func requestsEncodeExactly() {
        #expect(String(decoding: MessageCoding.encode(ProvisionRequest()), as: UTF8.self) == #"{"mode":"voice-agent"}"#)
        #expect(
            String(decoding: MessageCoding.encode(ConnectRequest(sdp: "v=0", mid: "0")), as: UTF8.self)
                == #"{"mid":"0","sdp":"v=0"}"#)
        #expect(String(decoding: MessageCoding.encode(EmptyMessage()), as: UTF8.self) == "{}")
        #expect(
            String(decoding: MessageCoding.encode(AuthFrame(token: "t")), as: UTF8.self)
                == #"{"token":"t","type":"auth"}"#)
    }

    @Test func eventsParse() {
        #expect(BridgeEvent.parse(#"{"event":"repull"}"#) == .repull)
        #expect(BridgeEvent.parse(#"{"event":"barge-in"}"#) == .bargeIn("barge-in"))
        #expect(BridgeEvent.parse(#"{"event":"barge-in-soft","x":1}"#) == .bargeIn("barge-in-soft"))
        #expect(BridgeEvent.parse(#"{"event":"unmute"}"#) == .unmute)
        #expect(BridgeEvent.parse(#"{"event":"transcript"}"#) == nil)
        #expect(BridgeEvent.parse("garbage") == nil)
        #expect(BridgeEvent.parse(#"{"event":7}"#) == nil)
        for event in [BridgeEvent.repull, .unmute, .bargeIn("barge-in")] {
            #expect(BridgeEvent.parse(event.frameText) == event)
        }
        #expect(AuthFrame.parse(#"{"type":"auth","token":"x"}"#)?.token == "x")
        #expect(AuthFrame.parse(#"{"type":"hello","token":"x"}"#) == nil)
    }

    @Test func urlsResolveAgainstBase() throws {
        let base = try #require(URL(string: "https://bridge.example/"))
        #expect(
            try BridgeURLs.resolve("/api/v1/call/c/sdp", against: base).absoluteString
                == "https://bridge.example/api/v1/call/c/sdp")
        #expect(try BridgeURLs.resolve("http://other:9/x", against: base).absoluteString == "http://other:9/x")
        let events = try BridgeURLs.resolve("/api/v1/call/c/events", against: base)
        #expect(try BridgeURLs.webSocketURL(for: events).absoluteString == "wss://bridge.example/api/v1/call/c/events")
        let local = try #require(URL(string: "http://127.0.0.1:8080/"))
        #expect(
            try BridgeURLs.webSocketURL(for: BridgeURLs.resolve("/e", against: local)).absoluteString
                == "ws://127.0.0.1:8080/e")
        #expect(throws: SignalingError.self) { try BridgeURLs.resolve("", against: base) }
        #expect(throws: SignalingError.self) { try BridgeURLs.resolve("ftp://x/y", against: base) }
    }

    @Test func secretComparison() {
        #expect(SecretComparison.constantTimeEquals("abc", "abc"))
        #expect(!SecretComparison.constantTimeEquals("abc", "abd"))
        #expect(!SecretComparison.constantTimeEquals("abc", "abcd"))
        #expect(!SecretComparison.constantTimeEquals("", "a"))
        #expect(SecretComparison.constantTimeEquals("", ""))
    }

    @Test func statusMapping() {
        #expect(SignalingError.forStatus(401, route: "provision", perCall: false) == .unauthorized)
        #expect(SignalingError.forStatus(401, route: "pull", perCall: true) == .callTokenRejected(route: "pull"))
        #expect(SignalingError.forStatus(403, route: "provision", perCall: false) == .forbidden(route: "provision"))
        #expect(
            SignalingError.forStatus(404, route: "connect", perCall: true).description
                == "Bridge connect failed (404)")
    }
}
