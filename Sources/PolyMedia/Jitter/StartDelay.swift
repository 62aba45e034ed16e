// The delay a stream starts at. Until the buffer has seen the network, its target rests on an empty histogram: the
// spread of the first packets, often 20 ms where the path will later ask for 60. The first late packets of a route
// change, a Wi-Fi scan or slow wander then cost concealment and a step back in the first seconds, which a listener
// hears at the start of the call (the greeting). So for a hold after the first packet the target is at least a
// floor; when the hold lapses, pauses take the delay that floor left back down to within 5 ms of the target.
// Measured in docs/JITTER.md ("A start delay of 40 ms"): route changes +0.17 PESQ-WB cold; real calls at 5 % loss
// +0.15, all of it in the first utterance, and jitter level; a clean call's delay 26 -> 34 ms.
import PolyCore

/// A floor under the target delay at the start of a stream, and its take-back afterwards; sans-IO (time passed in).
struct StartDelay {
    let floorMilliseconds: Double
    let holdNanoseconds: Int64
    private var firstArrival: Instant?
    /// Whether the delay is back within 5 ms of the target since the hold lapsed (or there never was a floor).
    private var takenBack: Bool

    init(floorMilliseconds: Double, holdNanoseconds: Int64) {
        self.floorMilliseconds = floorMilliseconds
        self.holdNanoseconds = holdNanoseconds
        takenBack = floorMilliseconds <= 0 || holdNanoseconds <= 0
    }

    /// A packet arrived at `now`; the buffer's first one starts the hold. A new SSRC does not start it again: the
    /// histograms it stands in for are kept across streams too (`resetStream`).
    mutating func noteArrival(at now: Instant) {
        if firstArrival == nil { firstArrival = now }
    }

    /// The floor in force at `now`: 0 before the first packet and after the hold.
    func floorMilliseconds(at now: Instant) -> Double {
        guard let firstArrival, now.nanoseconds - firstArrival.nanoseconds < holdNanoseconds else { return 0 }
        return floorMilliseconds
    }

    /// Whether the playout delay `level` must still be taken down towards `target` (both in samples; `fiveMs` is
    /// 5 ms in samples): from when the hold lapses until the level first comes within 5 ms of the target.
    mutating func takeBackDue(level: Double, target: Double, fiveMs: Double, at now: Instant) -> Bool {
        guard !takenBack, let firstArrival, now.nanoseconds - firstArrival.nanoseconds >= holdNanoseconds else {
            return false
        }
        if level <= target + fiveMs { takenBack = true }
        return !takenBack
    }
}
