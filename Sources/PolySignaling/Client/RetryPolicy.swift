// When and how long BridgeClient waits before retrying 429 and 5xx answers. Pure: no clock inside.
import FoundationEssentials
import Glibc
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
        let trimmed = value.trimmingWhitespace()
        if let seconds = Int64(trimmed) { return seconds >= 0 ? .seconds(seconds) : nil }
        guard let date = httpDate(trimmed) else { return nil }
        let seconds = max(0, date.timeIntervalSince(now))
        return .nanoseconds(Int64(seconds * 1e9))
    }

    /// An IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), the form RFC 9110 has senders use.
    static func httpDate(_ text: String) -> Date? {
        let fields = text.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard fields.count == 6, fields[0].count == 4, fields[0].hasSuffix(","), fields[5] == "GMT",
            let day = Int(fields[1]), (1...31).contains(day), let monthIndex = months.firstIndex(of: String(fields[2])),
            fields[3].count == 4, let year = Int(fields[3])
        else { return nil }
        let clock = fields[4].split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        guard clock.count == 3, let hour = clock[0], let minute = clock[1], let second = clock[2],
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: monthIndex + 1, day: day)
        return Date(timeIntervalSince1970: Double(((days * 24 + hour) * 60 + minute) * 60 + second))
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
