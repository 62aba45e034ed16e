import PolyCore
import Testing

@testable import PolyVoiceBridge

@Suite struct CallReaperTests {
    static let timeouts = CallReaper.Timeouts(
        setupTimeout: .seconds(30), resumeGrace: .seconds(10), mediaTimeout: .seconds(15))

    /// Provisions `id` at `at` with media active and events open.
    static func live(_ reaper: inout CallReaper, _ id: String, at: Instant) {
        reaper.handle(.provisioned(id), at: at)
        reaper.handle(.mediaActive(id), at: at)
        reaper.handle(.eventsOpened(id), at: at)
    }

    @Test func eventsSocketGoneLongerThanTheGraceEndsTheCall() {
        var reaper = CallReaper(timeouts: Self.timeouts)
        Self.live(&reaper, "a", at: .zero)
        reaper.handle(.eventsClosed("a"), at: .seconds(2))
        for t in stride(from: 2.0, to: 12.0, by: 1) {
            reaper.handle(.mediaActive("a"), at: .seconds(t))
            #expect(reaper.pollOutput(at: .seconds(t)) == nil)
        }
        #expect(reaper.nextDeadline() == .seconds(12))
        #expect(reaper.pollOutput(at: .seconds(12)) == .init(callID: "a", reason: .eventsGone))
        #expect(reaper.nextDeadline() == nil)
    }

    @Test func reopeningWithinTheGraceKeepsTheCall() {
        var reaper = CallReaper(timeouts: Self.timeouts)
        Self.live(&reaper, "a", at: .zero)
        reaper.handle(.eventsClosed("a"), at: .seconds(1))
        reaper.handle(.eventsOpened("a"), at: .seconds(9))
        reaper.handle(.mediaActive("a"), at: .seconds(9))
        #expect(reaper.pollOutput(at: .seconds(20)) == nil)
        #expect(reaper.nextDeadline() == .seconds(24))
    }

    @Test func mediaSilenceEndsTheCall() {
        var reaper = CallReaper(timeouts: Self.timeouts)
        Self.live(&reaper, "a", at: .zero)
        reaper.handle(.mediaActive("a"), at: .seconds(5))
        #expect(reaper.pollOutput(at: .seconds(19.9)) == nil)
        #expect(reaper.pollOutput(at: .seconds(20)) == .init(callID: "a", reason: .mediaTimeout))
    }

    @Test func callsThatNeverConnectEndAfterTheSetupTimeout() {
        var reaper = CallReaper(timeouts: Self.timeouts)
        reaper.handle(.provisioned("a"), at: .zero)
        reaper.handle(.provisioned("b"), at: .seconds(1))
        // b has media, but never an events socket.
        for t in [2.0, 12, 22] { reaper.handle(.mediaActive("b"), at: .seconds(t)) }
        #expect(reaper.nextDeadline() == .seconds(30))
        #expect(reaper.pollOutput(at: .seconds(30)) == .init(callID: "a", reason: .setupTimeout))
        #expect(reaper.pollOutput(at: .seconds(30)) == nil)
        #expect(reaper.pollOutput(at: .seconds(31)) == .init(callID: "b", reason: .setupTimeout))
    }

    @Test func hangUpAndShutdownEndAtOnceAndOnlyOnce() {
        var reaper = CallReaper(timeouts: Self.timeouts)
        Self.live(&reaper, "a", at: .zero)
        Self.live(&reaper, "b", at: .zero)
        Self.live(&reaper, "c", at: .zero)
        reaper.handle(.hangUp("b"), at: .seconds(1))
        reaper.handle(.hangUp("b"), at: .seconds(1))
        #expect(reaper.pollOutput(at: .seconds(1)) == .init(callID: "b", reason: .hangUp))
        #expect(reaper.pollOutput(at: .seconds(1)) == nil)
        reaper.handle(.shutdown, at: .seconds(2))
        #expect(reaper.pollOutput(at: .seconds(2)) == .init(callID: "a", reason: .shutdown))
        #expect(reaper.pollOutput(at: .seconds(2)) == .init(callID: "c", reason: .shutdown))
        #expect(reaper.pollOutput(at: .seconds(100)) == nil)
        #expect(reaper.activeCallIDs.isEmpty)
    }
}

@Suite struct RateLimiterTests {
    @Test func burstThenSustainedRate() {
        var limiter = RateLimiter(configuration: .init(burst: 3, ratePerSecond: 2))
        for _ in 0..<3 { #expect(limiter.admit("ip", at: .zero) == nil) }
        #expect(limiter.admit("ip", at: .zero) == .milliseconds(500))
        #expect(limiter.admit("other", at: .zero) == nil)
        #expect(limiter.admit("ip", at: .seconds(0.5)) == nil)
        #expect(limiter.admit("ip", at: .seconds(0.5)) != nil)
        #expect(limiter.admit("ip", at: .seconds(10)) == nil)
    }
}

@Suite struct TokenTests {
    @Test func tokenSetMatchesOnlyExactTokens() {
        let set = TokenSet(["alpha-token", "beta-token", ""])
        #expect(set.count == 2)
        #expect(set.contains("alpha-token") && set.contains("beta-token"))
        #expect(!set.contains("alpha-toke") && !set.contains("alpha-token!") && !set.contains(""))
        #expect(TokenSet.constantTimeEquals(Array("abc".utf8), Array("abc".utf8)))
        #expect(!TokenSet.constantTimeEquals(Array("abc".utf8), Array("abd".utf8)))
        #expect(!TokenSet.constantTimeEquals(Array("abc".utf8), Array("ab".utf8)))
    }

    @Test func tokensFromFileAndEnvironment() {
        let tokens = TokenSet.parse(fileContents: "# comment\n one \n\ntwo\n", environment: "three, four,,")
        #expect(tokens == ["one", "two", "three", "four"])
    }

    @Test func callIDsAndTokensAreRandomHex() {
        let token = SecureRandom.callToken()
        #expect(token.count == 32 && token.allSatisfy(\.isHexDigit))
        #expect(token != SecureRandom.callToken())
        let id = SecureRandom.callID()
        #expect(id.hasPrefix("call-") && id.count == 21)
    }
}
