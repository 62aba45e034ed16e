// Where the playout delay may sit around the target without the buffer stretching speech for it.
//
// Below the target the band reaches down by a quarter of it, at most 20 ms: playout anywhere in it is in time for
// the packets the target was chosen for, and the level filter wanders there without audio being stretched. Above
// the target it reaches 20 ms over the low edge. Packets are played in time only when their delay is below the
// playout delay, so what a target guarantees is its low edge.

/// The playout delay band around a target delay, in any one unit (milliseconds or samples).
struct PlayoutBand {
    let target: Double
    let low: Double
    let high: Double

    /// The band for `target`; `twentyMilliseconds` is 20 ms in the unit of `target`.
    init(target: Double, twentyMilliseconds: Double) {
        self.target = target
        low = max(target * 0.75, target - twentyMilliseconds)
        high = max(target, low + twentyMilliseconds)
    }

    /// The least target whose band's low edge is `low`: `init(target:)` inverted.
    static func target(lowEdge low: Double, twentyMilliseconds: Double) -> Double {
        min(low / 0.75, low + twentyMilliseconds)
    }
}
