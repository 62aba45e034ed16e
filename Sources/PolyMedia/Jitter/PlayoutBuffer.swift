// The interface shared by the adaptive buffer and the fixed-delay baseline, so one simulation drives both.
import PolyCore

/// A sans-IO playout buffer: packets in at their arrival time, fixed-size frames out on request.
public protocol PlayoutBuffer {
    mutating func insert(_ packet: JitterPacket, at now: Instant)
    mutating func pull(at now: Instant, into output: UnsafeMutableBufferPointer<Int16>) -> PlayoutOperation
    var statistics: JitterBufferStatistics { get }
    /// The delay the buffer aims for now.
    var targetDelay: Duration { get }
    /// Audio buffered ahead of the playout point now.
    var currentLevel: Duration { get }
}

extension JitterBuffer: PlayoutBuffer {}
