// Tunables of the adaptive jitter buffer.

/// How the jitter buffer plays out; the defaults suit 48 kHz mono Opus with 20 ms packets.
public struct JitterBufferConfiguration: Sendable, Equatable {
    /// Output sample rate (the decoder's rate).
    public var sampleRate: Int = 48000
    /// The clock of the packets' RTP timestamps (Opus: 48 kHz at every `sampleRate`); a whole multiple of
    /// `sampleRate`.
    public var rtpClockRate: Int = 48000
    /// Samples returned by each `pull` (480 = 10 ms, or 960 = 20 ms).
    public var frameSamples: Int = 480
    /// Bounds of the target delay.
    public var minimumDelay: Duration = .milliseconds(10)
    public var maximumDelay: Duration = .milliseconds(400)
    /// For `startDelayHold` after a stream's first packet the target is at least this (the spread of arrivals is
    /// not yet measured); afterwards pauses take the delay back down (`StartDelay`). Only with time-stretching
    /// (`maximumStretchRatio` above 0): without it nothing would take that delay back. `.zero` turns it off.
    public var startDelay: Duration = .milliseconds(40)
    public var startDelayHold: Duration = .seconds(4)
    /// How long concealment may wait for a late packet (adding delay) before skipping past it. Off by default:
    /// on the evaluation traces, waiting cost more (in later acceleration) than the late audio it saved.
    public var stallLimit: Duration = .zero
    /// PLC longer than this turns into silence (PLC of a long gap sounds worse than silence).
    public var maximumConcealment: Duration = .milliseconds(100)
    /// Concealment this long with nothing buffered is an outage: restart on the next packet that arrives.
    public var outageThreshold: Duration = .milliseconds(300)
    /// After a loss, keep extra delay this long so in-band FEC can be used more often.
    public var fecHoldAfterLoss: Duration = .seconds(10)
    /// That extra delay, as a fraction of a packet (at least enough for the next packet to arrive in time).
    public var fecHoldFraction: Double = 0.5
    /// The hold (fraction of a packet) while packets keep arriving after their playout time: two such late
    /// arrivals within `lateBurstWindow` mean reordering, which the lower half of the playout band misses.
    public var reorderHoldFraction: Double = 0.75
    /// Two late arrivals closer than this count as reordering (and switch to `reorderHoldFraction`).
    public var lateBurstWindow: Duration = .seconds(2)
    /// Within `lateBurstWindow` of a packet that turned up after the buffer had run dry and skipped its slot, the
    /// next underflow waits up to a packet for its packet instead of skipping, and the target keeps the delay that
    /// wait added this long (a playout clock of the sender's pace whose phase sits right at the arrivals would
    /// otherwise conceal part of every packet).
    public var underflowHold: Duration = .seconds(20)
    /// Most of the output that time-scale modification may add or remove (rate limit). `0` turns time-scale
    /// modification off entirely: no accelerate or preemptive expand (not even in pauses) and no pitch search, so
    /// playout costs little more than decoding; the delay then follows the network, corrected only by concealment
    /// when the buffer runs dry and by flushing to target when it overflows. For consumers that do not need a
    /// steady low delay, such as a bridge's agents.
    public var maximumStretchRatio: Double = 0.25
    /// More packets than this, or more buffered audio than `maximumDelay` plus one second, flushes to target.
    public var maximumPackets: Int = 200
    /// A timestamp jump larger than this (with the same SSRC) restarts the stream.
    public var timestampJumpLimit: Duration = .seconds(10)

    public init() {}
}
