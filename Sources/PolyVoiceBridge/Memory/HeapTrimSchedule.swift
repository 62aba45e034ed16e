// When the bridge gives freed heap back to the system. Calls free their memory when they end, but glibc keeps
// it in its arenas, in pages that later calls' small allocations pin: a bridge that has served thousands of
// calls holds more than one that has served a hundred (docs/MEMORY.md). A trim after calls end returns it.
import PolyCore

/// Sans-IO: told when calls end, says when a trim is due. A trim waits `settle` after the first call ended
/// since the last one (a call's media closes a second or two after it ends), and comes at most once per
/// `interval` (a trim walks every arena and holds each arena's lock while it does).
struct HeapTrimSchedule: Sendable {
    let interval: Duration
    let settle: Duration
    private var endedCallsSeen: UInt64 = 0
    private var firstEndSinceTrim: Instant?
    private var lastTrim: Instant?

    init(interval: Duration, settle: Duration = .seconds(5)) {
        self.interval = interval
        self.settle = settle
    }

    /// `endedCalls` calls have ended by `now` (a running total: the bridge ends calls on several paths).
    mutating func observe(endedCalls: UInt64, at now: Instant) {
        guard endedCalls > endedCallsSeen else { return }
        endedCallsSeen = endedCalls
        if firstEndSinceTrim == nil { firstEndSinceTrim = now }
    }

    /// True (once) when a trim is due at `now`.
    mutating func takeDue(at now: Instant) -> Bool {
        guard let firstEnd = firstEndSinceTrim, now - firstEnd >= settle else { return false }
        if let lastTrim, now - lastTrim < interval { return false }
        firstEndSinceTrim = nil
        lastTrim = now
        return true
    }
}
