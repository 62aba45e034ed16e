// Time as the sans-IO cores see it: a point on a monotonic timeline, passed in by the caller.
import Glibc

/// A point in time, in nanoseconds on an arbitrary monotonic timeline.
///
/// Sans-IO cores never read a clock: the shell (or a test's virtual clock) passes `Instant`s in.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static let zero = Instant(nanoseconds: 0)

    public static func milliseconds(_ ms: Int64) -> Instant { Instant(nanoseconds: ms * 1_000_000) }
    public static func seconds(_ s: Double) -> Instant { Instant(nanoseconds: Int64(s * 1e9)) }

    public var milliseconds: Double { Double(nanoseconds) / 1e6 }
    public var seconds: Double { Double(nanoseconds) / 1e9 }

    /// The current time of the process's monotonic clock (for I/O shells only).
    public static func now() -> Instant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Instant(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }

    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    public static func + (lhs: Instant, rhs: Duration) -> Instant {
        Instant(nanoseconds: lhs.nanoseconds + rhs.totalNanoseconds)
    }

    public static func - (lhs: Instant, rhs: Duration) -> Instant {
        Instant(nanoseconds: lhs.nanoseconds - rhs.totalNanoseconds)
    }

    public static func += (lhs: inout Instant, rhs: Duration) { lhs = lhs + rhs }

    /// The signed time from `rhs` to `lhs`.
    public static func - (lhs: Instant, rhs: Instant) -> Duration {
        .nanoseconds(lhs.nanoseconds - rhs.nanoseconds)
    }

    public var description: String { String(cFormat: "%.3fs", seconds) }
}

extension Duration {
    /// The whole duration in nanoseconds (saturating far beyond any call's length).
    public var totalNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// The duration in (fractional) milliseconds.
    public var inMilliseconds: Double { Double(totalNanoseconds) / 1e6 }

    /// The duration in (fractional) seconds.
    public var inSeconds: Double { Double(totalNanoseconds) / 1e9 }
}

extension Optional where Wrapped == Instant {
    /// Keeps the earlier of this deadline and `deadline`, either of which may be absent: a core's next deadline,
    /// taken over its timers.
    @inlinable public mutating func formEarliest(_ deadline: Instant?) {
        guard let deadline else { return }
        if let current = self, current <= deadline { return }
        self = deadline
    }
}
