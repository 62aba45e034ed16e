import Dispatch
import PolyCore
import Testing

@Suite struct BoundedWaitTests {
    @Test func tasksThatEndInTimeAreWaitedFor() async {
        let first = Task { _ = try? await Task.sleep(for: .milliseconds(50)) }
        let second = Task { _ = try? await Task.sleep(for: .milliseconds(100)) }
        let started = ContinuousClock.now
        #expect(await BoundedWait.wait(for: [first, second], atMost: .seconds(5)))
        #expect(ContinuousClock.now - started >= .milliseconds(100))
        #expect(ContinuousClock.now - started < .seconds(2))
    }

    @Test func aTaskThatIgnoresCancellationIsGivenUpOnAtTheLimit() async {
        // A wait the task's cancellation cannot cut short (as a call into an event loop).
        let stuck = Task {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(5)) { done.resume() }
            }
        }
        stuck.cancel()
        let started = ContinuousClock.now
        #expect(!(await BoundedWait.wait(for: [stuck], atMost: .milliseconds(200))))
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(200))
        #expect(waited < .seconds(2))
    }

    @Test func noTasksIsAllEnded() async {
        #expect(await BoundedWait.wait(for: [], atMost: .seconds(1)))
    }
}
