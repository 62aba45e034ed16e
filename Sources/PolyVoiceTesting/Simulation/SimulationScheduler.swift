// The deterministic event loop of simulations: earliest deadline first, on a virtual clock.
import PolyCore

/// Runs participants on a `VirtualClock`: step everything due now, then jump to the earliest deadline.
public final class SimulationScheduler {
    /// Why a run stopped.
    public enum StopReason: Equatable, Sendable {
        /// No participant has a deadline any more.
        case idle
        /// The clock reached the run's time limit.
        case deadline
        /// The run's condition became true.
        case condition
        /// A participant kept reporting work at one instant (a live-lock in the code under test).
        case stuck(at: Instant)
    }

    public let clock: VirtualClock
    public private(set) var participants: [any SimulationParticipant] = []
    /// Steps taken at a single instant before the run is declared stuck.
    public var maximumStepsPerInstant = 100_000

    public init(clock: VirtualClock = VirtualClock()) { self.clock = clock }

    public var now: Instant { clock.now }

    public func add(_ participant: any SimulationParticipant) {
        participants.append(participant)
    }

    /// The earliest deadline of any participant (clamped to now: overdue work is due now).
    public func nextDeadline() -> Instant? {
        guard let earliest = participants.compactMap({ $0.nextDeadline() }).min() else { return nil }
        return max(earliest, clock.now)
    }

    /// Runs until nothing is scheduled or the clock would pass `limit`; the clock ends at `limit` unless idle.
    @discardableResult
    public func run(until limit: Instant) -> StopReason {
        run(until: limit, stopWhen: { false })
    }

    /// Runs for `duration` of virtual time from now.
    @discardableResult
    public func run(for duration: Duration) -> StopReason {
        run(until: clock.now + duration)
    }

    /// Runs until `condition` holds (checked after every instant), nothing is scheduled, or `limit` is reached.
    @discardableResult
    public func run(until limit: Instant, stopWhen condition: () -> Bool) -> StopReason {
        while true {
            if !settle() { return .stuck(at: clock.now) }
            if condition() { return .condition }
            guard let next = nextDeadline() else { return .idle }
            if next > limit {
                clock.advance(to: limit)
                return .deadline
            }
            clock.advance(to: next)
        }
    }

    /// Steps every participant at the current instant until none has more work; false if it never settles.
    private func settle() -> Bool {
        for _ in 0..<maximumStepsPerInstant {
            var worked = false
            for participant in participants where participant.step(at: clock.now) {
                worked = true
            }
            if !worked { return true }
        }
        return false
    }
}
