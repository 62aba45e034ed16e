// Target delay from the distribution of relative packet arrival delay (NetEq's idea, our implementation).
//
// Each packet's transit delay is measured against the fastest packet of the last ten seconds. Two decaying
// histograms of that relative delay are kept: a long one (≈30 s memory) for the steady state and a short one
// (≈1 s memory) so the target grows within a second when jitter rises; the target is the larger of their high
// quantiles. Because the long histogram forgets slowly, the target shrinks slowly. Truly isolated delay spikes enter
// both histograms at the steady-state value: packets well above it (40 ms) that arrive as one burst (a stall released
// its queue; within 60 ms of the first) with no other peak in the 15 s before. Raising the target for a rare spike
// costs delay and stretching all the time to save a little concealment once. A peak that lasts (delay wander, a
// route change) or recurs (Wi-Fi scans every few seconds) is jitter and counts as measured; `LateLossMonitor` applies
// the same rule to the packets the buffer actually lost late.
// When the reference moves (its fastest packet leaves the window, or a faster one arrives), the delays already in
// the histograms are moved by as much: they and the playout delay the buffer compares with them must be measured
// from the same point. Before, when the fastest packet of a route aged out, the reference rose by tens of ms, the
// playout delay (measured from it) fell by as much while the target (from the histograms) stayed, and the buffer
// stretched speech to add delay that no packet needed.
// Forgetting multiplies a whole histogram by a factor per packet; it is applied lazily (see `DecayingHistogram`),
// so a packet costs one bin update and two quantile look-ups (which re-add only the running sums the update changed)
// instead of a pass over 1000 bins.

/// Estimates how much delay the buffer needs to play nearly all packets in time.
struct DelayEstimator {
    static let binMilliseconds = 2.0
    static let binCount = 500  // up to 1 s of relative delay
    /// The fastest packet of this window is the reference: long enough that delay wander and route changes of a
    /// few seconds show as relative delay (a deep enough fixed buffer plays them all), short enough to follow a
    /// lasting change of path.
    static let minimumWindowMilliseconds = 10_000.0

    private var longHistogram = DecayingHistogram(binCount: binCount)
    private var shortHistogram = DecayingHistogram(binCount: binCount)
    /// A packet this far (ms) above the long-term requirement is a delay peak.
    static let peakMarginMilliseconds = 40.0
    private let longForget = 0.9993
    private let shortForget = 0.98
    private let longQuantile = 0.97
    private let shortQuantile = 0.90
    private var longRequired = 0.0
    /// The current (or last) peak episode: when its first and latest peak packets arrived, and when the one before
    /// it ended (ms).
    private var peakEpisodeStart = -Double.infinity
    private var lastPeak = -Double.infinity
    private var previousPeakEnd = -Double.infinity
    /// Reference moves (ms) not yet applied to the histograms, which move in whole bins.
    private var unappliedShift = 0.0
    /// The least transit of the window: the reference.
    private var fastest = SlidingMinimum(windowMilliseconds: DelayEstimator.minimumWindowMilliseconds)
    private(set) var packetsSeen = 0
    /// The latest estimate of the relative delay the buffer must absorb, in milliseconds.
    private(set) var requiredMilliseconds = 0.0

    /// Records one packet: it arrived at `arrivalMs` and carries media time `mediaMs` (both on any fixed origin).
    /// Returns how far (ms) the delays it measures moved because the reference did (negative when it rose): a
    /// delay kept in the same terms elsewhere (the late-loss floor, the level filter) must move alike.
    @discardableResult
    mutating func update(arrivalMs: Double, mediaMs: Double) -> Double {
        let transit = arrivalMs - mediaMs
        let referenceBefore = referenceTransitMilliseconds
        fastest.add(transit, atMs: arrivalMs)
        let reference = fastest.value ?? transit
        let shifted = referenceBefore.map { shiftHistograms(by: $0 - reference) } ?? 0
        let relative = max(0, transit - reference)
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
        return shifted
    }

    /// Moves the stored delays by `milliseconds` (the reference moved the other way) in whole bins, keeping the
    /// remainder for the next move; returns the part applied.
    private mutating func shiftHistograms(by milliseconds: Double) -> Double {
        unappliedShift += milliseconds
        let bins = Int(unappliedShift / Self.binMilliseconds)
        guard bins != 0 else { return 0 }
        longHistogram.shift(by: bins)
        shortHistogram.shift(by: bins)
        let applied = Double(bins) * Self.binMilliseconds
        unappliedShift -= applied
        return applied
    }

    /// Whether a packet's relative delay is a peak far above the steady state that belongs to an isolated spike:
    /// its episode (peak packets less than 100 ms apart) arrived as one burst and followed no other within 15 s.
    private mutating func isIsolatedPeak(relative: Double, arrivalMs: Double) -> Bool {
        guard packetsSeen > 50, relative > longRequired + Self.peakMarginMilliseconds else { return false }
        if arrivalMs - lastPeak > LateLossMonitor.episodeGapMilliseconds {
            previousPeakEnd = lastPeak
            peakEpisodeStart = arrivalMs
        }
        lastPeak = arrivalMs
        let burst = arrivalMs - peakEpisodeStart < LateLossMonitor.burstMilliseconds
        return burst && peakEpisodeStart - previousPeakEnd >= LateLossMonitor.spikeMemoryMilliseconds
    }

    /// The reference transit (ms): the least `arrivalMs - mediaMs` of the window, nil before the first packet.
    var referenceTransitMilliseconds: Double? { fastest.value }

    /// Forgets the minimum-transit reference (new stream or clock); the histograms keep the network's history.
    mutating func resetReference() {
        fastest.removeAll()
        unappliedShift = 0
    }
}
