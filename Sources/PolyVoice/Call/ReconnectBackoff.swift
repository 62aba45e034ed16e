// Delays between reconnect attempts: exponential, capped, with random jitter.
import Glibc
import PolyCore

/// Exponential backoff with "equal jitter": the delay after attempt n is drawn uniformly from
/// `[ceiling·(1−jitter), ceiling]` with `ceiling = min(initial·multiplierⁿ⁻¹, maximum)`, so that
/// many clients dropped at once do not retry in lock-step, yet no delay is ever near zero.
public struct ReconnectBackoff: Hashable, Sendable {
    public var initial: Duration
    public var multiplier: Double
    public var maximum: Duration
    /// Fraction of the delay that is random, in 0...1.
    public var jitter: Double

    public init(
        initial: Duration = .milliseconds(250), multiplier: Double = 2, maximum: Duration = .seconds(4),
        jitter: Double = 0.5
    ) {
        self.initial = initial
        self.multiplier = max(1, multiplier)
        self.maximum = max(initial, maximum)
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The largest delay after attempt `attempt` (1-based).
    public func ceiling(afterAttempt attempt: Int) -> Duration {
        let exponent = Double(max(attempt, 1) - 1)
        let seconds = min(initial.inSeconds * pow(multiplier, min(exponent, 64)), maximum.inSeconds)
        return .nanoseconds(Int64(seconds * 1e9))
    }

    /// The range the delay after attempt `attempt` is drawn from.
    public func bounds(afterAttempt attempt: Int) -> ClosedRange<Duration> {
        let top = ceiling(afterAttempt: attempt)
        return (top * (1 - jitter))...top
    }

    /// A jittered delay after attempt `attempt`, drawn from `random`.
    public func delay(afterAttempt attempt: Int, using random: inout SeededRandom) -> Duration {
        let top = ceiling(afterAttempt: attempt)
        return top * (1 - jitter * random.unit())
    }
}
