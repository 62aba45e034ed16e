// The I/O side of `HeapTrimSchedule`: calls glibc's malloc_trim when the schedule says so.
import CLinux
import PolyCore
import Synchronization

/// Driven by the bridge's reaper timer; thread-safe.
final class HeapTrimmer: Sendable {
    private let schedule: Mutex<HeapTrimSchedule>
    private let log: BridgeLog

    init(interval: Duration, log: BridgeLog) {
        schedule = Mutex(HeapTrimSchedule(interval: interval))
        self.log = log
    }

    /// `endedCalls` is how many calls have ended so far; trims if a trim is due at `now`.
    func tick(endedCalls: UInt64, at now: Instant) {
        let due = schedule.withLock { schedule in
            schedule.observe(endedCalls: endedCalls, at: now)
            return schedule.takeDue(at: now)
        }
        guard due else { return }
        let start = Instant.now()
        let released = malloc_trim(0) != 0
        let micros = (Instant.now() - start).totalNanoseconds / 1000
        log.event(.debug, "heap.trimmed", ["released": String(released), "microseconds": String(micros)])
    }
}
