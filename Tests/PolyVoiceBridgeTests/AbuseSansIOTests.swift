// The sans-IO parts of the bridge's abuse defences, in virtual time: the rate limiter's bounded state, the
// request head policy, deadlines, and the WebSocket message assembler's limit.
import PolyCore
import PolySignaling
import Testing

@testable import PolyVoiceBridge

@Suite struct AbuseSansIOTests {
    @Test func rateLimiterStateStaysBoundedUnderAFloodOfClients() {
        var limiter = RateLimiter(configuration: .init(burst: 4, ratePerSecond: 1, maxClients: 100))
        var now = Instant.zero
        var peak = 0
        // 100,000 distinct clients within 10 virtual seconds: none of their buckets has refilled.
        for index in 0..<100_000 {
            #expect(limiter.admit("client-\(index)", at: now) == nil)
            peak = max(peak, limiter.trackedClients)
            now += .microseconds(100)
        }
        #expect(peak <= 101)
        // A client seen just now keeps its (drained) bucket through evictions.
        for _ in 0..<4 { _ = limiter.admit("hammer", at: now) }
        #expect(limiter.admit("hammer", at: now) != nil)
        for index in 0..<50 { _ = limiter.admit("late-\(index)", at: now) }
        #expect(limiter.admit("hammer", at: now) != nil)
    }

    @Test func rateLimiterAnswersWithTheWaitUntilTheNextToken() {
        var limiter = RateLimiter(configuration: .init(burst: 2, ratePerSecond: 4))
        #expect(limiter.admit("a", at: .zero) == nil)
        #expect(limiter.admit("a", at: .zero) == nil)
        #expect(limiter.admit("a", at: .zero) == .milliseconds(250))
        #expect(limiter.admit("b", at: .zero) == nil)  // per client
        #expect(limiter.admit("a", at: .milliseconds(250)) == nil)
    }

    @Test func requestHeadPolicyRefusesWhatItWouldNotRead() {
        func decide(_ headers: [String: String]) -> RequestHeadDecision {
            RequestHeadPolicy.decide(headers: headers, maxBodyBytes: 4096)
        }
        #expect(decide([:]) == .dispatch)
        #expect(decide(["content-length": "0"]) == .dispatch)
        #expect(decide(["content-length": "15"]) == .readBody(15))
        #expect(decide(["content-length": " 4096 "]) == .readBody(4096))
        #expect(decide(["content-length": "4097"]) == .reject(.bodyTooLarge))
        #expect(decide(["content-length": "104857600"]) == .reject(.bodyTooLarge))
        #expect(decide(["content-length": "99999999999999999999999999"]) == .reject(.bodyTooLarge))
        #expect(decide(["content-length": "-1"]) == .reject(.badContentLength))
        #expect(decide(["content-length": "12abc"]) == .reject(.badContentLength))
        #expect(decide(["content-length": ""]) == .reject(.badContentLength))
        #expect(decide(["transfer-encoding": "chunked"]) == .reject(.lengthRequired))
        let tooLarge = RequestHeadPolicy.response(for: .bodyTooLarge, maxBodyBytes: 4096)
        #expect(tooLarge.status == 413)
        let body = try? MessageCoding.decode(ErrorBody.self, from: tooLarge.body)
        #expect(body?.error == "body_too_large")
        #expect(body?.message?.contains("4096") == true)
        for rejection in ServerRejection.allCases {
            #expect(RequestHeadPolicy.response(for: rejection, maxBodyBytes: 1).errorCode == rejection.rawValue)
        }
    }

    @Test func deadlinesExpireOnceInOrder() {
        var table = DeadlineTable<Int>()
        table.set(1, .milliseconds(300))
        table.set(2, .milliseconds(100))
        table.set(3, .milliseconds(200))
        table.clear(3)
        #expect(table.expired(at: .milliseconds(99)).isEmpty)
        #expect(table.expired(at: .milliseconds(400)) == [2, 1])
        #expect(table.expired(at: .milliseconds(500)).isEmpty)
        #expect(table.isEmpty)
    }

    @Test func messageAssemblerJoinsFragmentsAndRefusesPastItsLimit() {
        var assembler = MessageAssembler(limit: 8)
        func append(_ text: String, final: Bool) -> MessageAssembler.Outcome {
            Array(text.utf8).withUnsafeBytes { assembler.append($0, final: final) }
        }
        #expect(append("{\"a\"", final: false) == .incomplete)
        #expect(append(":1}", final: true) == .message("{\"a\":1}"))
        #expect(append("12345", final: false) == .incomplete)
        #expect(append("6789", final: true) == .tooBig)
        #expect(assembler.pendingBytes == 0)
        #expect(append("ok", final: true) == .message("ok"))
    }

    @Test func closePayloadsParse() {
        #expect(WebSocketClose(payload: [0x03, 0xE8]) == WebSocketClose(code: 1000))
        #expect(WebSocketClose(payload: [0x03, 0xF0, 0x61]) == WebSocketClose(code: 1008, reason: "a"))
        #expect(WebSocketClose(payload: [0x03]) == nil)
    }

    @Test func tokenChecksUseTheOneConstantTimeComparison() {
        let tokens = TokenSet(["alpha-token", "beta-token"])
        #expect(tokens.contains("beta-token"))
        #expect(!tokens.contains("beta-tokeN"))
        #expect(!tokens.contains("beta-toke"))
        #expect(!tokens.contains(""))
        for (a, b) in [("abc", "abc"), ("abc", "abd"), ("abc", "ab"), ("", "")] {
            #expect(
                TokenSet.constantTimeEquals(Array(a.utf8), Array(b.utf8)) == SecretComparison.constantTimeEquals(a, b))
        }
    }
}
