// The interface shared by the adaptive buffer and the fixed-delay baseline, so one simulation drives both.
import PolyCore

/// A sans-IO playout buffer: packets in at their arrival time, fixed-size frames out on request.
public protocol PlayoutBuffer {
    /// Adds a packet that arrived at `now`.
    mutating func insert(_ packet: JitterPacket, at now: Instant)
    /// Plays one frame (the buffer's frame size, 10 ms by default) into `output`.
    mutating func pull(at now: Instant, into output: UnsafeMutableBufferPointer<Int16>) -> PlayoutOperation
    /// Cumulative statistics (W3C names).
    var statistics: JitterBufferStatistics { get }
    /// The delay the buffer aims for now.
    var targetDelay: Duration { get }
    /// Audio buffered ahead of the playout point now.
    var currentLevel: Duration { get }
    /// What an adaptive buffer's target is made of now; nil for a buffer whose delay is fixed.
    var adaptiveTargetParts: TargetDelayParts? { get }
}

extension PlayoutBuffer {
    public var adaptiveTargetParts: TargetDelayParts? { nil }
}

extension JitterBuffer: PlayoutBuffer {
    public var adaptiveTargetParts: TargetDelayParts? { targetParts }
}
