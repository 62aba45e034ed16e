// The packet-loss percentage given to the Opus encoder, driven by the far end's receiver reports.
//
// PLATFORM-NOTES "Opus and loss": FEC costs quality on a clean path, so once reports arrive the hint follows
// the reported fraction lost (smoothed, capped) and decays back to 0 when the path is clean. Before the first
// report nothing is known about the path: the hint is the application's expectation
// (`CodecSettings.expectedLossPercent`), so the first second of a call on a lossy path is covered too.

/// Smoothed, capped loss percentage from RTCP `fractionLost` (0...255 of 256), seeded by an expectation.
struct LossHint: Sendable, Equatable {
    /// Weight of a new report; reports come about once a second, so a loss burst shows within 2–3 s.
    static let weight = 0.4
    let cap: Int
    /// What is used until the first report (0...100; not capped: the application chose it).
    let initial: Int
    private(set) var smoothed = 0.0
    /// Whether a receiver report has replaced the initial expectation.
    private(set) var hasReport = false

    init(cap: Int, initial: Int = 0) {
        self.cap = max(0, min(100, cap))
        self.initial = max(0, min(100, initial))
    }

    /// The percentage to configure now.
    var percent: Int { hasReport ? min(cap, Int(smoothed.rounded())) : initial }

    /// Takes one report block's fraction lost; returns true when `percent` changed.
    /// The first report is a measurement of the path and replaces the expectation outright.
    mutating func record(fractionLost: UInt8) -> Bool {
        let before = percent
        let reported = Double(fractionLost) / 256 * 100
        if hasReport {
            smoothed += Self.weight * (reported - smoothed)
        } else {
            hasReport = true
            smoothed = reported
        }
        return percent != before
    }
}
