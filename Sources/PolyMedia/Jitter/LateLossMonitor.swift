// The jitter buffer's feedback from what it actually lost: packets that arrived after their playout time.
//
// The delay histograms predict the delay the buffer needs; late arrivals show when that prediction was too low.
// Each late packet says how much playout delay would have played it: the delay playout ran at plus its lateness.
// Late arrivals close together form one episode. An episode raises a floor under the target, at once, to the least
// target whose band (`PlayoutBand`) still plays such a packet with a margin to spare, unless it is an isolated
// spike: all of its late packets arrived in one burst (a stall that released its queue together) and no other
// episode came within `spikeMemory`. Slow delay wander and route changes make packets late one after another, so
// their episodes last and raise the floor within 60 ms of late arrivals; recurring spikes (Wi-Fi scans, handovers)
// raise it at the second one. The floor is held for `hold` after the last raise, then falls by `decayPerSecond`: up
// quickly, down slowly. Slowly means 1 ms a second: a floor raised by a spread of delays falls back to where the
// spread's next slow packet is late again, and each time that costs a concealment, a step back and stretching (the
// sawtooth in docs/JITTER.md's long calls). Falling 10 ms a second got there 3 s after the hold; 2 ms a second, still
// often enough inside a 40 s call to leave it behind libwebrtc's steady target.
// The floor is kept as the low edge it guarantees, not as a target: a packet is played in time when its delay is
// under the low edge, and when the reference moves, that edge must move with the delays exactly. Below 80 ms the
// band is narrower than above it, so a target shifted across 80 ms moved its low edge by less than the delays moved.

/// Raises a floor under the target delay when packets arrive too late to be played; sans-IO (time passed in).
struct LateLossMonitor {
    /// Late arrivals closer than this (ms) belong to one episode.
    static let episodeGapMilliseconds = 100.0
    /// An episode whose late arrivals span less than this (ms) arrived as one burst: the release of a stall.
    static let burstMilliseconds = 60.0
    /// A late episode within this (ms) of the previous one shows the spikes recur: no longer isolated.
    static let spikeMemoryMilliseconds = 15_000.0
    /// Delay added on top of the lateness seen (ms): the next late packet is rarely exactly as late.
    static let marginMilliseconds = 10.0
    /// The floor stays this long (ms) after it was last raised, then decays.
    static let holdMilliseconds = 8000.0
    /// How fast the floor's low edge falls after the hold, ms per second (the target falls up to a third faster below
    /// 80 ms, where the band is a quarter of the target).
    static let decayPerSecond = 1.0

    /// The low edge of the band the floor guarantees (ms); the floor is the least target with that low edge.
    private var lowEdge = HeldValue(holdMilliseconds: Self.holdMilliseconds, decayPerSecond: Self.decayPerSecond)
    private var episodeStart = -Double.infinity
    private var lastLate = -Double.infinity
    private var previousEpisodeEnd = -Double.infinity
    /// Late packets seen in total, and how many of them raised the floor.
    private(set) var lateArrivals = 0
    private(set) var raises = 0

    /// Notes a packet that arrived at `nowMs` and would have been played by a playout delay of `neededDelayMs`
    /// (the delay playout ran at, plus how late the packet was). Not the target in force plus the lateness: while
    /// the delay is still growing towards the target that would count the distance to it twice. Returns whether
    /// the floor was raised (the loss was not an isolated spike).
    mutating func lateArrival(atMs nowMs: Double, neededDelayMs: Double) -> Bool {
        lateArrivals += 1
        if nowMs - lastLate > Self.episodeGapMilliseconds {
            previousEpisodeEnd = lastLate
            episodeStart = nowMs
        }
        lastLate = nowMs
        let lasting = nowMs - episodeStart >= Self.burstMilliseconds
        let recurring = episodeStart - previousEpisodeEnd < Self.spikeMemoryMilliseconds
        guard lasting || recurring else { return false }
        let needed = neededDelayMs + Self.marginMilliseconds
        lowEdge.set(max(lowEdge.value(atMs: nowMs), needed), atMs: nowMs)
        raises += 1
        return true
    }

    /// Moves the floor by `delta` ms: the delays it is compared with are now measured from another reference.
    mutating func shiftFloor(by delta: Double) { lowEdge.shift(by: delta) }

    /// The floor under the target delay at `nowMs` (0 when no late loss asked for one).
    func floorMilliseconds(atMs nowMs: Double) -> Double {
        PlayoutBand.target(lowEdge: lowEdge.value(atMs: nowMs), twentyMilliseconds: 20)
    }
}
