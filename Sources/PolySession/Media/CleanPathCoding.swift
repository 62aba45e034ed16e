// A cheaper Opus mode for while the far end reports a clean path: a server's way to code many calls.
//
// The main encoder (SILK with in-band FEC) is what a lossy path needs, and it costs 3–5× the CPU of
// CELT at low complexity (PLATFORM-NOTES "Opus and loss"; measured in docs/ARCHITECTURE.md's bridge
// section). FEC buys nothing while receiver reports show no loss, so a server may code those frames
// with this instead and hand back to the main encoder as soon as loss is reported.
import PolyAudio

/// The Opus mode used while the far end's receiver reports show no loss (`MediaEndpointConfiguration`).
public struct CleanPathCoding: Sendable, Equatable {
    /// `.restrictedLowDelay` codes CELT only: no speech model, so the cheapest mode per frame.
    public var application: OpusApplication
    /// Opus complexity, 0...10.
    public var complexity: Int
    /// The widest band coded (nil: as the bitrate allows).
    public var maxBandwidth: OpusBandwidth?
    /// Target bitrate in bit/s (nil: the main encoder's clean-path target); the far end's
    /// `maxaveragebitrate` still caps it.
    public var bitrate: Int?

    public init(application: OpusApplication, complexity: Int, maxBandwidth: OpusBandwidth?, bitrate: Int? = nil) {
        self.application = application
        self.complexity = complexity
        self.maxBandwidth = maxBandwidth
        self.bitrate = bitrate
    }

    /// CELT at complexity 0, wideband, 64 kbit/s: about a third of the CPU of SILK wideband at complexity 1.
    /// CELT has no speech model, so it needs the bits: after a caller's own Opus generation (96 kbit/s
    /// fullband) it scores 3.95 PESQ-WB on the hardest voice at 64 kbit/s against 2.80 at 32 kbit/s, for 38
    /// instead of 29 µs per 20 ms frame (Benchmarks/SenderEval `--echo`, docs/SENDER.md).
    public static let celtWideband = CleanPathCoding(
        application: .restrictedLowDelay, complexity: 0, maxBandwidth: .wideband, bitrate: 64_000)
}
