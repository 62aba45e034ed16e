import PolyCore
import PolyNet
import Testing

@testable import PolyVoiceTesting

/// Fires every `period` until `count` ticks, recording the instants it was stepped at.
private final class Ticker: SimulationParticipant {
    let period: Duration
    var next: Instant
    var remaining: Int
    var fired: [Instant] = []

    init(period: Duration, count: Int, start: Instant = .zero) {
        self.period = period
        self.next = start
        self.remaining = count
    }

    func nextDeadline() -> Instant? { remaining > 0 ? next : nil }

    func step(at now: Instant) -> Bool {
        guard remaining > 0, now >= next else { return false }
        fired.append(now)
        remaining -= 1
        next += period
        return true
    }
}

/// Always claims to have work: the scheduler must detect it instead of hanging.
private final class Spinner: SimulationParticipant {
    func nextDeadline() -> Instant? { .zero }
    func step(at now: Instant) -> Bool { true }
}

@Suite struct SchedulerTests {
    @Test func clockOnlyMovesForward() {
        let clock = VirtualClock(start: .milliseconds(10))
        clock.advance(by: .milliseconds(5))
        #expect(clock.now == .milliseconds(15))
        clock.advance(to: .milliseconds(3))
        #expect(clock.now == .milliseconds(15))
        clock.advance(to: .milliseconds(40))
        #expect(clock.now == .milliseconds(40))
    }

    @Test func runsParticipantsAtTheirDeadlinesUntilIdle() {
        let scheduler = SimulationScheduler()
        let fast = Ticker(period: .milliseconds(20), count: 5)
        let slow = Ticker(period: .milliseconds(30), count: 3, start: .milliseconds(5))
        scheduler.add(fast)
        scheduler.add(slow)
        #expect(scheduler.run(until: .seconds(10)) == .idle)
        #expect(fast.fired == [0, 20, 40, 60, 80].map { Instant.milliseconds($0) })
        #expect(slow.fired == [5, 35, 65].map { Instant.milliseconds($0) })
        #expect(scheduler.now == .milliseconds(80))
    }

    @Test func stopsAtTheTimeLimit() {
        let scheduler = SimulationScheduler()
        let ticker = Ticker(period: .milliseconds(20), count: 1000)
        scheduler.add(ticker)
        #expect(scheduler.run(for: .milliseconds(100)) == .deadline)
        #expect(ticker.fired.count == 6)
        #expect(scheduler.now == .milliseconds(100))
        #expect(scheduler.run(for: .milliseconds(50)) == .deadline)
        #expect(ticker.fired.count == 8)
    }

    @Test func stopsWhenTheConditionHolds() {
        let scheduler = SimulationScheduler()
        let ticker = Ticker(period: .milliseconds(10), count: 1000)
        scheduler.add(ticker)
        let reason = scheduler.run(until: .seconds(5)) { ticker.fired.count >= 3 }
        #expect(reason == .condition)
        #expect(scheduler.now == .milliseconds(20))
    }

    @Test func detectsLiveLock() {
        let scheduler = SimulationScheduler()
        scheduler.maximumStepsPerInstant = 50
        scheduler.add(Spinner())
        #expect(scheduler.run(for: .seconds(1)) == .stuck(at: .zero))
    }

    @Test func delayQueueIsOrderedAndStable() {
        var queue = DelayQueue<Int>()
        let dues: [Int64] = [30, 10, 20, 10, 5, 30]
        for (index, due) in dues.enumerated() { queue.insert(index, due: .milliseconds(due)) }
        #expect(queue.popDue(at: .milliseconds(4)) == nil)
        var order: [Int] = []
        while let item = queue.popDue(at: .milliseconds(100)) { order.append(item.element) }
        #expect(order == [4, 1, 3, 2, 0, 5])
        #expect(queue.isEmpty)
    }
}
