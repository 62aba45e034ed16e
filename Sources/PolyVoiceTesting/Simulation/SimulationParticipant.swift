// What the scheduler drives: anything with deadlines that does work when its time comes.
import PolyCore

/// A participant in a virtual-time simulation (a network of nodes, an audio clock, a single sans-IO core).
///
/// The scheduler asks every participant for `nextDeadline()`, advances the clock to the earliest one and
/// calls `step(at:)` on each participant until none reports work at that instant.
public protocol SimulationParticipant: AnyObject {
    /// The earliest instant at which this participant has work to do, or nil when it is idle.
    func nextDeadline() -> Instant?
    /// Does all work due at `now`; returns true if anything happened (so the scheduler steps again).
    func step(at now: Instant) -> Bool
}
