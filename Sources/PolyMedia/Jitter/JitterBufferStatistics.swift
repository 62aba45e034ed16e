// Playout statistics with the W3C WebRTC stats names (RTCInboundRtpStreamStats), mapped into MediaStats by the caller.

/// Cumulative jitter buffer statistics; names and units follow the W3C `RTCInboundRtpStreamStats` fields.
public struct JitterBufferStatistics: Sendable, Equatable {
    /// Sum over emitted samples of the time each spent in the buffer (arrival to playout), in seconds.
    public var jitterBufferDelay: Double = 0
    /// Sum over emitted samples of the target delay when they were emitted, in seconds.
    public var jitterBufferTargetDelay: Double = 0
    /// Samples emitted from decoded packets (the divisor of the two delays above).
    public var jitterBufferEmittedCount: UInt64 = 0
    /// Samples concealed (PLC or silence in place of missing audio).
    public var concealedSamples: UInt64 = 0
    /// Of `concealedSamples`, those played as silence (long loss, after PLC has faded).
    public var silentConcealedSamples: UInt64 = 0
    /// Contiguous runs of concealment.
    public var concealmentEvents: UInt64 = 0
    /// Lone lost packets whose concealment was cross-faded into the next packet's audio (not a W3C field).
    public var interpolatedConcealments: UInt64 = 0
    /// Samples added by time-stretching (preemptive expand) to grow the buffer.
    public var insertedSamplesForDeceleration: UInt64 = 0
    /// Samples removed by time-compression (accelerate) to shrink the buffer.
    public var removedSamplesForAcceleration: UInt64 = 0
    /// All samples played out, including concealed ones.
    public var totalSamplesReceived: UInt64 = 0
    /// Packets received that may carry in-band FEC.
    public var fecPacketsReceived: UInt64 = 0
    /// Lost packets recovered from the next packet's in-band FEC.
    public var fecPacketsRecovered: UInt64 = 0
    /// Packets dropped: too late for playout, duplicates, undecodable, or flushed on overflow.
    public var packetsDiscarded: UInt64 = 0
    /// Concealment runs of at least 150 ms.
    public var interruptionCount: UInt64 = 0
    /// Total length of those runs, in seconds.
    public var totalInterruptionDuration: Double = 0
    /// Times the buffer was flushed (overflow or `flush()`).
    public var bufferFlushes: UInt64 = 0
    /// Packets that arrived after playout had passed them (not a W3C field): discarded, or played after a rewind.
    public var latePackets: UInt64 = 0
    /// Late packets that raised the target and were played by stepping playout back to them (not a W3C field).
    public var lateRewinds: UInt64 = 0

    public init() {}

    /// Mean time an emitted sample spent in the buffer, in milliseconds (0 before any playout).
    public var meanDelayMilliseconds: Double {
        jitterBufferEmittedCount == 0 ? 0 : jitterBufferDelay / Double(jitterBufferEmittedCount) * 1000
    }

    /// Mean target delay over emitted samples, in milliseconds.
    public var meanTargetDelayMilliseconds: Double {
        jitterBufferEmittedCount == 0 ? 0 : jitterBufferTargetDelay / Double(jitterBufferEmittedCount) * 1000
    }
}
