import PolyCore
import Testing

@testable import PolyVoiceBridge

/// The reaper skips its scan until the earliest deadline it knows of: inputs that bring a deadline forward
/// must still end the call on time, and calls due together still end in call-id order.
@Suite struct CallReaperExpiryTests {
    @Test func anInputThatBringsADeadlineForwardIsHonoured() {
        var reaper = CallReaper(timeouts: CallReaperTests.timeouts)
        reaper.handle(.provisioned("a"), at: .zero)  // setup deadline 30 s
        reaper.handle(.eventsOpened("a"), at: .zero)
        reaper.handle(.eventsClosed("a"), at: .seconds(2))  // now 12 s
        #expect(reaper.pollOutput(at: .seconds(11.9)) == nil)
        #expect(reaper.pollOutput(at: .seconds(12)) == .init(callID: "a", reason: .eventsGone))
    }

    @Test func mediaActivityAfterTheSetupDeadlineWasKnownStillEndsOnMediaTimeout() {
        var reaper = CallReaper(timeouts: CallReaperTests.timeouts)
        reaper.handle(.provisioned("a"), at: .zero)
        reaper.handle(.eventsOpened("a"), at: .zero)
        reaper.handle(.mediaActive("a"), at: .seconds(1))  // setup met; media deadline 16 s
        #expect(reaper.pollOutput(at: .seconds(15.9)) == nil)
        #expect(reaper.nextDeadline() == .seconds(16))
        #expect(reaper.pollOutput(at: .seconds(16)) == .init(callID: "a", reason: .mediaTimeout))
    }

    @Test func callsDueTogetherEndInCallIDOrderAndOthersStay() {
        var reaper = CallReaper(timeouts: CallReaperTests.timeouts)
        for id in ["d", "b", "e", "a", "c"] { CallReaperTests.live(&reaper, id, at: .zero) }
        for t in stride(from: 1.0, through: 20, by: 1) {
            for id in ["a", "c"] { reaper.handle(.mediaActive(id), at: .seconds(t)) }
        }
        let ended = (0..<4).compactMap { _ in reaper.pollOutput(at: .seconds(20)) }
        #expect(ended.map(\.callID) == ["b", "d", "e"])
        #expect(ended.allSatisfy { $0.reason == .mediaTimeout })
        #expect(Set(reaper.activeCallIDs) == ["a", "c"])
        #expect(reaper.nextDeadline() == .seconds(35))
    }
}
