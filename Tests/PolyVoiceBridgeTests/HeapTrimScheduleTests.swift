// When the bridge trims its heap: after calls end and their media has had time to close, at most once per interval.
import PolyCore
import Testing

@testable import PolyVoiceBridge

@Suite struct HeapTrimScheduleTests {
    let t0 = Instant(nanoseconds: 1_000_000_000_000)

    @Test func noTrimWhileNoFurtherCallEnds() {
        var schedule = HeapTrimSchedule(interval: .seconds(30))
        schedule.observe(endedCalls: 4, at: t0)  // calls that ended before: already trimmed or none
        _ = schedule.takeDue(at: t0 + .seconds(10))
        for second in 11..<120 {
            schedule.observe(endedCalls: 4, at: t0 + .seconds(second))
            let due = schedule.takeDue(at: t0 + .seconds(second))
            #expect(!due)
        }
    }

    @Test func aTrimComesOnceTheSettleTimeAfterTheFirstEnd() {
        var schedule = HeapTrimSchedule(interval: .seconds(30), settle: .seconds(5))
        schedule.observe(endedCalls: 2, at: t0)
        schedule.observe(endedCalls: 3, at: t0 + .seconds(3))  // later ends do not push the trim back
        let early = schedule.takeDue(at: t0 + .milliseconds(4900))
        let onTime = schedule.takeDue(at: t0 + .seconds(5))
        let again = schedule.takeDue(at: t0 + .seconds(6))
        #expect(!early)
        #expect(onTime)
        #expect(!again)  // once
    }

    @Test func trimsAreAtLeastAnIntervalApartUnderChurn() {
        var schedule = HeapTrimSchedule(interval: .seconds(30), settle: .seconds(5))
        var trims: [Instant] = []
        // A call ends every 100 ms for five minutes, as under steady churn.
        for tick in 0..<3000 {
            let now = t0 + .milliseconds(100 * tick)
            schedule.observe(endedCalls: UInt64(tick + 1), at: now)
            if schedule.takeDue(at: now) { trims.append(now) }
        }
        #expect(trims.first == t0 + .seconds(5))
        #expect(trims.count == 10)
        #expect(zip(trims, trims.dropFirst()).allSatisfy { $1 - $0 == .seconds(30) })
    }
}
