// When and how long BridgeClient waits before retrying 429 and 5xx answers. Pure: no clock inside.
import Foundation
import PolyCore

/// Retry rules for bridge requests: exponential backoff with jitter for 5xx, `Retry-After` for 429.
public struct RetryPolicy: Sendable, Equatable {
    /// Total attempts per request including the first (1 = never retry).
    public var maxAttempts: Int
    /// Delay before the first retry; doubles on each further retry.
    public var baseDelay: Duration
    /// Upper bound of one backoff delay (before jitter).
    public var maxDelay: Duration
    /// Fraction of the delay added at random (0.5 → delay × [1, 1.5)).
    public var jitter: Double
    /// Upper bound of a server's `Retry-After` (PROTOCOL.md: 30 s).
    public var retryAfterCap: Duration

    public init(
        maxAttempts: Int = 4, baseDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(4),
        jitter: Double = 0.5, retryAfterCap: Duration = .seconds(30)
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.jitter = max(0, jitter)
        self.retryAfterCap = retryAfterCap
    }

    /// Never retries.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// Whether a response with `status` should be retried.
    public static func isRetryable(status: Int) -> Bool { status == 429 || (500...599).contains(status) }

    /// The backoff after failed attempt `attempt` (1-based); `unitRandom` in [0, 1) scales the jitter.
    public func backoff(afterAttempt attempt: Int, unitRandom: Double) -> Duration {
        let exponent = min(max(attempt - 1, 0), 30)
        let base = min(baseDelay.inSeconds * pow(2, Double(exponent)), maxDelay.inSeconds)
        let factor = 1 + jitter * min(max(unitRandom, 0), 1)
        return .nanoseconds(Int64(base * factor * 1e9))
    }

    /// The wait a 429 asks for: `Retry-After` if it parses (capped), else the backoff.
    public func delayFor429(retryAfter: String?, now: Date, attempt: Int, unitRandom: Double) -> Duration {
        guard let retryAfter, let asked = RetryAfter.parse(retryAfter, now: now) else {
            return backoff(afterAttempt: attempt, unitRandom: unitRandom)
        }
        return min(asked, retryAfterCap)
    }
}

/// Parsing of the HTTP `Retry-After` header (RFC 9110 §10.2.3).
public enum RetryAfter {
    /// Delay-seconds or an IMF-fixdate; nil if neither. Dates in the past give zero.
    public static func parse(_ value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int64(trimmed) { return seconds >= 0 ? .seconds(seconds) : nil }
        guard let date = httpDate(trimmed) else { return nil }
        let seconds = max(0, date.timeIntervalSince(now))
        return .nanoseconds(Int64(seconds * 1e9))
    }

    private static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}
