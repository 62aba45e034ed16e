// How far behind the newest packet reordered packets have been arriving lately, in sequence numbers: how long a
// missing sequence number must be passed by newer ones before a receiver report may call it lost.
import PolyCore

/// The largest displacement of a reordered packet in the last 5–10 s (two 5 s periods), so it follows a network
/// whose reordering grows at once and forgets it within seconds once it stops.
struct ReorderDepth: Sendable, Equatable {
    static let period: Duration = .seconds(5)
    private var current = 0
    private var previous = 0
    private var periodStart: Instant?

    /// Notes a packet that arrived `displacement` sequence numbers behind the newest.
    mutating func note(displacement: Int, at now: Instant) {
        roll(to: now)
        current = max(current, displacement)
    }

    /// The depth to allow for now.
    mutating func depth(at now: Instant) -> Int {
        roll(to: now)
        return max(current, previous)
    }

    private mutating func roll(to now: Instant) {
        guard let start = periodStart else {
            periodStart = now
            return
        }
        let elapsed = now - start
        if elapsed >= Self.period * 2 {
            (previous, current, periodStart) = (0, 0, now)
        } else if elapsed >= Self.period {
            (previous, current, periodStart) = (current, 0, start + Self.period)
        }
    }
}
