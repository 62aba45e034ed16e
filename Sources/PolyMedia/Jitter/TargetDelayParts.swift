// What the adaptive buffer's target delay is made of at one moment, so a timeline can show which rule set it
// (docs/JITTER.md explains each). The target is the sum of the first three, or the late-loss floor when that is
// higher, or the start floor in a stream's first seconds, within the configured bounds.

/// The parts of the adaptive jitter buffer's target delay, in milliseconds.
public struct TargetDelayParts: Sendable, Equatable, Codable {
    /// The measured spread of arrivals (`DelayEstimator`'s quantile) plus one pull.
    public var spreadMs: Double
    /// Delay kept after waits for late packets under the playout clock.
    public var headroomMs: Double
    /// After a loss: room for the next packet's FEC, and what FEC was measured to need.
    public var lossHoldMs: Double
    /// The floor that late losses raised (`LateLossMonitor`), 0 when none.
    public var lateLossFloorMs: Double
    /// The floor in a stream's first seconds (`JitterBufferConfiguration.startDelay`), 0 after them.
    public var startFloorMs: Double
    /// The playout delay the level control compares with the target (filtered).
    public var playoutDelayMs: Double
}
