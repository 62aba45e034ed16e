// Target delay from the distribution of relative packet arrival delay (NetEq's idea, our implementation).
//
// Each packet's transit delay is measured against the fastest packet of the last two seconds. Two decaying
// histograms of that relative delay are kept: a long one (≈30 s memory) for the steady state and a short one
// (≈1 s memory) so the target grows within a second when jitter rises; the target is the larger of their high
// quantiles. Because the long histogram forgets slowly, the target shrinks slowly. Isolated delay peaks (well above
// the steady state, fewer than three per second) enter both histograms at the steady-state value: raising the
// target for rare spikes costs delay and stretching all the time to save a little concealment now and then.
// Forgetting multiplies a whole histogram by a factor per packet; it is applied lazily (see `DecayingHistogram`),
// so a packet costs one bin update and two quantile look-ups (which re-add only the running sums the update changed)
// instead of a pass over 1000 bins.

/// Estimates how much delay the buffer needs to play nearly all packets in time.
struct DelayEstimator {
    static let binMilliseconds = 2.0
    static let binCount = 500  // up to 1 s of relative delay
    static let minimumWindowMilliseconds = 2000.0

    private var longHistogram = DecayingHistogram(binCount: binCount)
    private var shortHistogram = DecayingHistogram(binCount: binCount)
    /// A packet this far (ms) above the long-term requirement is a delay peak.
    static let peakMarginMilliseconds = 40.0
    /// Peaks (arrival bursts counted once) needed within one second before they count as jitter.
    static let peaksForJitter = 3
    private let longForget = 0.9993
    private let shortForget = 0.98
    private let longQuantile = 0.97
    private let shortQuantile = 0.90
    private var longRequired = 0.0
    /// Arrival times (ms) of recent delay peaks, oldest first; at most a few per second are kept.
    private var peakTimes: [Double] = []
    /// Monotonic deque of (arrival ms, transit ms) giving the minimum transit over the window.
    private var window: [(time: Double, transit: Double)] = []
    private var windowHead = 0
    private(set) var packetsSeen = 0
    /// The latest estimate of the relative delay the buffer must absorb, in milliseconds.
    private(set) var requiredMilliseconds = 0.0

    init() {
        window.reserveCapacity(512)
        peakTimes.reserveCapacity(Self.peaksForJitter)
    }

    /// Records one packet: it arrived at `arrivalMs` and carries media time `mediaMs` (both on any fixed origin).
    mutating func update(arrivalMs: Double, mediaMs: Double) {
        let transit = arrivalMs - mediaMs
        while window.count > windowHead, window[window.count - 1].transit >= transit { window.removeLast() }
        window.append((arrivalMs, transit))
        while windowHead < window.count - 1, window[windowHead].time < arrivalMs - Self.minimumWindowMilliseconds {
            windowHead += 1
        }
        if windowHead > 256 {
            window.removeFirst(windowHead)
            windowHead = 0
        }
        let relative = max(0, transit - window[windowHead].transit)
        packetsSeen += 1
        // Start by averaging (forget factor ramps up to its final value), so the first seconds adapt quickly.
        let longF = min(longForget, 1 - 1 / Double(packetsSeen + 1))
        let shortF = min(shortForget, 1 - 1 / Double(packetsSeen + 1))
        var bin = min(Self.binCount - 1, Int(relative / Self.binMilliseconds))
        if isIsolatedPeak(relative: relative, arrivalMs: arrivalMs) {
            // A transient spike (e.g. a radio stall that queues packets then releases them together) is ridden
            // out with concealment rather than raising the target for every packet after it.
            bin = min(Self.binCount - 1, Int(longRequired / Self.binMilliseconds))
        }
        longHistogram.add(bin, forget: longF)
        shortHistogram.add(bin, forget: shortF)
        longRequired = Double(longHistogram.quantileBin(longQuantile) + 1) * Self.binMilliseconds
        requiredMilliseconds = max(
            longRequired, Double(shortHistogram.quantileBin(shortQuantile) + 1) * Self.binMilliseconds)
    }

    /// Whether a packet's relative delay is a peak far above the steady state that is not part of frequent
    /// peaks; a burst of packets released together (arrivals within 30 ms) counts as one peak.
    private mutating func isIsolatedPeak(relative: Double, arrivalMs: Double) -> Bool {
        guard packetsSeen > 50, relative > longRequired + Self.peakMarginMilliseconds else { return false }
        while let first = peakTimes.first, first < arrivalMs - 1000 { peakTimes.removeFirst() }
        if peakTimes.last.map({ arrivalMs - $0 > 30 }) ?? true, peakTimes.count < Self.peaksForJitter {
            peakTimes.append(arrivalMs)
        }
        return peakTimes.count < Self.peaksForJitter
    }

    /// Forgets the minimum-transit reference (new stream or clock); the histograms keep the network's history.
    mutating func resetReference() {
        window.removeAll(keepingCapacity: true)
        windowHead = 0
    }
}
