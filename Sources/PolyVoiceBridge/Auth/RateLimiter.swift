// Per-client token buckets: a sans-IO rate limiter fed the time by its caller.
import PolyCore

/// A token bucket per client key: each request takes one token; buckets refill at `ratePerSecond`
/// up to `burst`. Idle full buckets are forgotten so the table stays small, and it never holds more than
/// `maxClients` buckets: past that the least recently seen are evicted (a flood of new client keys costs
/// bounded memory; an evicted client merely starts again with a full bucket).
public struct RateLimiter: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Requests a client may make at once.
        public var burst: Double
        /// Sustained requests per second.
        public var ratePerSecond: Double
        /// At most this many clients are tracked (at least 1).
        public var maxClients: Int

        public init(burst: Double = 40, ratePerSecond: Double = 20, maxClients: Int = 4096) {
            self.burst = burst
            self.ratePerSecond = ratePerSecond
            self.maxClients = max(1, maxClients)
        }
    }

    private struct Bucket: Sendable {
        var tokens: Double
        var updated: Instant
    }

    public let configuration: Configuration
    private var buckets: [String: Bucket] = [:]

    public init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    /// Takes a token for `client`; nil if allowed, else how long until the next token.
    public mutating func admit(_ client: String, at now: Instant) -> Duration? {
        var bucket = buckets[client] ?? Bucket(tokens: configuration.burst, updated: now)
        let elapsed = max(0, (now - bucket.updated).inSeconds)
        bucket.tokens = min(configuration.burst, bucket.tokens + elapsed * configuration.ratePerSecond)
        bucket.updated = now
        defer {
            buckets[client] = bucket
            if buckets.count > configuration.maxClients {
                shrink(at: now)
                buckets[client] = bucket  // never the one just charged (ties in time are evicted arbitrarily)
            }
        }
        if bucket.tokens >= 1 {
            bucket.tokens -= 1
            return nil
        }
        guard configuration.ratePerSecond > 0 else { return .seconds(60) }
        return .milliseconds(Int64(((1 - bucket.tokens) / configuration.ratePerSecond * 1000).rounded(.up)))
    }

    /// Number of tracked clients (for tests).
    public var trackedClients: Int { buckets.count }

    /// Forgets the buckets that have refilled; if that is not enough, keeps only the most recently seen
    /// three quarters of `maxClients` (so the next shrink is that many admissions away: amortised O(1)).
    private mutating func shrink(at now: Instant) {
        let refill = configuration.burst / max(configuration.ratePerSecond, 1e-9)
        buckets = buckets.filter { (now - $0.value.updated).inSeconds < refill }
        let keep = max(1, configuration.maxClients * 3 / 4)
        guard buckets.count > keep else { return }
        let recent = buckets.sorted { $0.value.updated > $1.value.updated }.prefix(keep)
        buckets = Dictionary(uniqueKeysWithValues: recent.map { ($0.key, $0.value) })
    }
}
