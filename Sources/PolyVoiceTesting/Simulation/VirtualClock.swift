// Virtual time for deterministic simulations: time moves only when the test (or scheduler) moves it.
import PolyCore

/// A clock that stands still until advanced. Shared by reference so every participant sees one time.
public final class VirtualClock {
    /// The current virtual time.
    public private(set) var now: Instant

    public init(start: Instant = .zero) { now = start }

    /// Moves time forward by `duration` (negative durations are ignored: time never runs backwards).
    public func advance(by duration: Duration) {
        advance(to: now + duration)
    }

    /// Moves time forward to `instant`; an instant in the past leaves the clock where it is.
    public func advance(to instant: Instant) {
        if instant > now { now = instant }
    }
}
