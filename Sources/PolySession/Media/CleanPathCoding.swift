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

    public init(application: OpusApplication, complexity: Int, maxBandwidth: OpusBandwidth?) {
        self.application = application
        self.complexity = complexity
        self.maxBandwidth = maxBandwidth
    }

    /// CELT at complexity 0, wideband: about a fifth of the CPU of SILK wideband at complexity 1, at
    /// about the same PESQ-WB on speech at 32 kbit/s (libopus 1.3.1 on the 2-core test machine).
    public static let celtWideband = CleanPathCoding(
        application: .restrictedLowDelay, complexity: 0, maxBandwidth: .wideband)
}
