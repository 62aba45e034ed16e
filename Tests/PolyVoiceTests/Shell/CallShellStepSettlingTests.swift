// A failure that overtakes a long step: the call's end is published only once that step has returned.
import Dispatch
import PolyMedia
import Testing

@testable import PolyVoice

@Suite("Call shell: steps a failure overtook", .serialized)
struct CallShellStepSettlingTests {
    @Test func theEndWaitsForTheAnswerStepTheFailureOvertook() async throws {
        let harness = try ShellHarness()
        defer { harness.stop() }
        let log = MediaLog()
        let call = try PolyCall(
            configuration: harness.configuration(), options: ShellHarness.nullAudio,
            mediaFactory: NoPathMidAnswerMedia.factory(log: log, answerTakes: .milliseconds(400)))
        try? await call.start()
        let final = await Wait.state(of: call) { $0.isTerminal }
        // The media is closed first (teardown), then the step returns, then the end is published. Published at
        // once, the end would come 400 ms before the step returns.
        #expect(log.all == ["close", "applyAnswer returned"])
        guard case .failed(.transport) = final else {
            Issue.record("expected the media's transport failure, got \(String(describing: final))")
            return
        }
    }

    @Test func aStepThatNeverReturnsHoldsTheEndNoLongerThanTheLimit() async throws {
        let harness = try ShellHarness()
        defer { harness.stop() }
        let log = MediaLog()
        let call = try PolyCall(
            configuration: harness.configuration(), options: ShellHarness.nullAudio,
            mediaFactory: NoPathMidAnswerMedia.factory(log: log, answerTakes: .seconds(30)))
        let started = ContinuousClock.now
        try? await call.start()
        let final = await Wait.state(of: call, timeout: .seconds(10)) { $0.isTerminal }
        let waited = ContinuousClock.now - started
        #expect(final != nil)
        #expect(waited >= CallShell.stepSettleLimit)
        #expect(waited < CallShell.stepSettleLimit + .seconds(3))
        #expect(!log.all.contains("applyAnswer returned"))
    }
}

/// Client media whose answer step reports that no path exists and then takes `answerTakes` to return,
/// ignoring cancellation (as a call into the event loop does).
private final class NoPathMidAnswerMedia: CallMedia {
    let log: MediaLog
    private let onEvent: @Sendable (CallMediaEvent) -> Void
    private let answerTakes: Duration

    init(setup: CallMediaSetup, log: MediaLog, answerTakes: Duration) {
        self.log = log
        onEvent = setup.onEvent
        self.answerTakes = answerTakes
    }

    static func factory(log: MediaLog, answerTakes: Duration) -> CallMediaFactory {
        { setup in NoPathMidAnswerMedia(setup: setup, log: log, answerTakes: answerTakes) }
    }

    func createOffer() async throws -> (sdp: String, mid: String) { ("fake-offer", "0") }

    func applyAnswer(_ sdp: String) async throws {
        onEvent(.noPath("no relay could be reached (test)"))
        let (seconds, attoseconds) = answerTakes.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { done.resume() }
        }
        log.add("applyAnswer returned")
    }

    func applyOffer(_ sdp: String) async throws -> String { "fake-pull-answer" }
    func restartICE() async throws -> String { "fake-restart-offer" }
    func applyRestartAnswer(_ sdp: String) async throws {}
    func keepChecking() async {}
    func usesLocalAddress(_ ip: String) async -> Bool { false }
    func setMuted(_ muted: Bool) async {}
    func sendDTMF(_ digits: String, duration: Duration) async throws(DTMFError) -> DTMFMethod { .inband }
    func flushPlayout() async {}
    func stats() async -> MediaStats { MediaStats() }
    func close() async { log.add("close") }
}
