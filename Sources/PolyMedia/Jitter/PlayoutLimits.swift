// The jitter buffer's configured durations, converted once to the units playout computes in.
//
// `Duration` arithmetic is 128-bit (a multiply to make one, a division to read it back), which the per-packet
// and per-pull paths would otherwise pay many times over. Conversions truncate to whole nanoseconds and samples,
// exactly as `Duration.totalNanoseconds` and the buffer's sample counts always did.

/// `JitterBufferConfiguration`'s durations in samples, nanoseconds and milliseconds.
struct PlayoutLimits {
    let sampleRate: Int
    let timestampJumpSamples: Int
    /// More buffered audio than this (`maximumDelay` + 1 s) flushes to target.
    let overflowSamples: Int
    let stallLimitSamples: Int
    let outageSamples: Int
    let maximumConcealmentSamples: Int
    let fecHoldNanoseconds: Int64
    let lateBurstNanoseconds: Int64
    let underflowHoldNanoseconds: Int64
    /// The most delay that waits for late packets may add (60 ms: three 20 ms ticks' worth of clock phase).
    let maximumHeadroomSamples: Int
    let minimumDelayMilliseconds: Double
    let maximumDelayMilliseconds: Double
    /// `startDelay` in milliseconds, 0 without time-stretching (nothing could take it back).
    let startDelayMilliseconds: Double
    let startDelayHoldNanoseconds: Int64

    init(_ configuration: JitterBufferConfiguration) {
        sampleRate = configuration.sampleRate
        func samples(_ duration: Duration) -> Int {
            Int(duration.totalNanoseconds * Int64(configuration.sampleRate) / 1_000_000_000)
        }
        timestampJumpSamples = samples(configuration.timestampJumpLimit)
        overflowSamples = samples(configuration.maximumDelay + .seconds(1))
        stallLimitSamples = samples(configuration.stallLimit)
        outageSamples = samples(configuration.outageThreshold)
        maximumConcealmentSamples = samples(configuration.maximumConcealment)
        fecHoldNanoseconds = configuration.fecHoldAfterLoss.totalNanoseconds
        lateBurstNanoseconds = configuration.lateBurstWindow.totalNanoseconds
        underflowHoldNanoseconds = configuration.underflowHold.totalNanoseconds
        maximumHeadroomSamples = samples(.milliseconds(60))
        minimumDelayMilliseconds = configuration.minimumDelay.inMilliseconds
        maximumDelayMilliseconds = configuration.maximumDelay.inMilliseconds
        startDelayMilliseconds = configuration.maximumStretchRatio > 0 ? configuration.startDelay.inMilliseconds : 0
        startDelayHoldNanoseconds = configuration.startDelayHold.totalNanoseconds
    }

    /// Whole samples in `nanoseconds`.
    func samples(nanoseconds: Int64) -> Int { Int(nanoseconds * Int64(sampleRate) / 1_000_000_000) }

    /// Whole samples in `milliseconds`.
    func samples(milliseconds: Int64) -> Int { samples(nanoseconds: milliseconds * 1_000_000) }
}
