// One second of call statistics, as the quality monitor consumes them.

/// The figures of one one-second statistics sample.
public struct QualitySample: Hashable, Sendable {
    /// Round-trip time from RTCP (or STUN consent); nil until the first measurement.
    public var rtt: Duration?
    /// Inbound interarrival jitter.
    public var jitter: Duration
    /// Inbound packets lost in this second divided by those expected, 0…1.
    public var lossFraction: Double
    /// Microphone level in dBFS (-∞ for digital silence); nil while muted and for null, file or app-buffer input.
    public var inputLevelDBFS: Double?
    /// Samples played out in this second that were concealed, over all samples played (W3C `concealedSamples` /
    /// `totalSamplesReceived`), 0…1: what the listener missed, whether the packets were lost or came too late.
    public var concealedFraction: Double
    /// Samples inserted or removed by time-stretching in this second (W3C `insertedSamplesForDeceleration` +
    /// `removedSamplesForAcceleration`) over all samples played, 0…1.
    public var stretchedFraction: Double

    public init(
        rtt: Duration?, jitter: Duration, lossFraction: Double, inputLevelDBFS: Double?, concealedFraction: Double = 0,
        stretchedFraction: Double = 0
    ) {
        self.rtt = rtt
        self.jitter = jitter
        self.lossFraction = lossFraction
        self.inputLevelDBFS = inputLevelDBFS
        self.concealedFraction = concealedFraction
        self.stretchedFraction = stretchedFraction
    }
}
