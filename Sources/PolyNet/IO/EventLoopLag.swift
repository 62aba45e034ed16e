// How late a loop's 20 ms frame clock ticks: the loop's lag, the time work waited for a busy or starved
// loop thread. Recorded on the loop thread and read from any thread as a cumulative histogram (the
// Prometheus shape), so readers take differences between two snapshots for any interval.
import Synchronization

/// A cumulative histogram of frame-clock lateness, as read at one moment.
public struct EventLoopLagSnapshot: Sendable, Equatable {
    /// Upper bounds of the buckets, in seconds (the last bucket, above them all, is implicit).
    public static let bucketBounds: [Double] = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2]

    /// Ticks counted, and the sum of their lateness in seconds.
    public var count: UInt64 = 0
    public var sumSeconds: Double = 0
    /// Ticks per bucket (not cumulative): `bucketCounts[i]` counts lateness in (bound[i-1], bound[i]];
    /// the last entry counts those above the last bound.
    public var bucketCounts = [UInt64](repeating: 0, count: bucketBounds.count + 1)
    /// The largest lateness since the loop started, in seconds.
    public var maxSeconds: Double = 0

    public init() {}

    /// The ticks between `earlier` and this snapshot (`maxSeconds` stays the largest since the start).
    public func since(_ earlier: EventLoopLagSnapshot) -> EventLoopLagSnapshot {
        var interval = EventLoopLagSnapshot()
        interval.count = count &- earlier.count
        interval.sumSeconds = sumSeconds - earlier.sumSeconds
        interval.bucketCounts = zip(bucketCounts, earlier.bucketCounts).map { $0 &- $1 }
        interval.maxSeconds = maxSeconds
        return interval
    }

    /// Adds another loop's ticks (a process with several loops).
    public mutating func add(_ other: EventLoopLagSnapshot) {
        count += other.count
        sumSeconds += other.sumSeconds
        bucketCounts = zip(bucketCounts, other.bucketCounts).map { $0 + $1 }
        maxSeconds = max(maxSeconds, other.maxSeconds)
    }

    /// Mean lateness in seconds (0 without ticks).
    public var meanSeconds: Double { count == 0 ? 0 : sumSeconds / Double(count) }

    /// The upper bound of the bucket holding quantile `q` (0...1); `.infinity` when it falls above the
    /// last bound; 0 without ticks.
    public func quantileUpperBound(_ q: Double) -> Double {
        guard count > 0 else { return 0 }
        let rank = UInt64((Double(count) * q).rounded(.up))
        var seen: UInt64 = 0
        for (index, bucket) in bucketCounts.enumerated() {
            seen += bucket
            if seen >= rank { return index < Self.bucketBounds.count ? Self.bucketBounds[index] : .infinity }
        }
        return .infinity
    }
}

/// The loop's recorder: written once per tick on the loop thread, read by scrapes from any thread. A lock
/// held for a few additions, uncontended but for the rare scrape.
final class EventLoopLagRecorder: Sendable {
    private let state = Mutex(EventLoopLagSnapshot())
    private static let boundsNanoseconds = EventLoopLagSnapshot.bucketBounds.map { Int64($0 * 1e9) }

    /// One tick, `lateness` after its ideal time.
    func record(latenessNanoseconds lateness: Int64) {
        let late = max(0, lateness)
        var index = 0
        while index < Self.boundsNanoseconds.count, late > Self.boundsNanoseconds[index] { index += 1 }
        let seconds = Double(late) / 1e9
        state.withLock { lag in
            lag.count += 1
            lag.sumSeconds += seconds
            lag.maxSeconds = max(lag.maxSeconds, seconds)
            lag.bucketCounts[index] += 1
        }
    }

    func snapshot() -> EventLoopLagSnapshot { state.withLock { $0 } }
}
