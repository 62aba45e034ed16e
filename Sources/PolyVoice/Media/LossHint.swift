// The packet-loss percentage given to the Opus encoder, driven by the far end's receiver reports.
//
// PLATFORM-NOTES "Opus and loss": FEC costs quality on a clean path, so the hint starts at 0 and follows
// the reported fraction lost (smoothed, capped); it decays back to 0 when the path is clean again.

/// Smoothed, capped loss percentage from RTCP `fractionLost` (0...255 of 256).
struct LossHint: Sendable, Equatable {
    /// Weight of a new report; reports come about once a second, so a loss burst shows within 2–3 s.
    static let weight = 0.4
    let cap: Int
    private(set) var smoothed = 0.0

    init(cap: Int) { self.cap = max(0, min(100, cap)) }

    /// The percentage to configure now.
    var percent: Int { min(cap, Int(smoothed.rounded())) }

    /// Takes one report block's fraction lost; returns true when `percent` changed.
    mutating func record(fractionLost: UInt8) -> Bool {
        let before = percent
        let reported = Double(fractionLost) / 256 * 100
        smoothed += Self.weight * (reported - smoothed)
        return percent != before
    }
}
