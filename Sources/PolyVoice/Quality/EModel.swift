// A simplified ITU-T G.107 E-model: network figures → R-factor → MOS, tuned for Opus with FEC/PLC.

/// Estimates listening-and-talking quality from round-trip time, jitter, loss and what playout concealed.
///
/// R = 93.2 − Id − Ie,eff, where
/// - the one-way mouth-to-ear delay d = RTT/2 + 2·jitter (the jitter buffer's share) + 26.5 ms
///   (a 20 ms Opus frame plus 6.5 ms look-ahead), and Id = 0.024·d + 0.11·(d − 177.3)·[d > 177.3];
/// - Ie,eff = Ie + (95 − Ie)·Ppl / (Ppl + Bpl) with Ppl the loss in percent (random loss, BurstR = 1),
///   Ie = 4 for wideband Opus at ~32 kbps (near transparent) and Bpl = 20 for Opus concealment with
///   in-band FEC (between G.711+PLC's 25.1 and more robust codecs);
/// - Ppl is the larger of the network loss and the audio the listener missed: the concealed share of the
///   played samples plus half the time-stretched share (a stretched pitch period is heard far less than PLC).
///   Packets that arrive too late for playout are concealed like lost ones, so a call whose packets all arrive
///   but miss their playout is scored by what it sounds like, and loss that FEC repaired is not counted twice.
///
/// MOS = 1 + 0.035·R + 7·10⁻⁶·R·(R − 60)·(100 − R), clamped to 1…4.5.
public enum EModel {
    /// Equipment impairment of the codec with no loss.
    public static let opusIe = 4.0
    /// Packet-loss robustness of the codec.
    public static let opusBpl = 20.0
    /// Codec delay added to the network delay: one 20 ms frame plus 6.5 ms look-ahead.
    public static let codecDelayMilliseconds = 26.5
    /// How much a time-stretched sample counts against quality, relative to a concealed one.
    public static let stretchWeight = 0.5

    /// The R-factor (0…93.2) for these conditions; `loss`, `concealed` and `stretched` are fractions in 0…1
    /// (network loss; concealed and time-stretched shares of the samples played).
    public static func rFactor(
        rtt: Duration, jitter: Duration, loss: Double, concealed: Double = 0, stretched: Double = 0
    ) -> Double {
        let delay = max(rtt.inMilliseconds, 0) / 2 + 2 * max(jitter.inMilliseconds, 0) + codecDelayMilliseconds
        var delayImpairment = 0.024 * delay
        if delay > 177.3 { delayImpairment += 0.11 * (delay - 177.3) }
        let heard = max(concealed, 0) + stretchWeight * max(stretched, 0)
        let lossPercent = min(max(loss, heard, 0), 1) * 100
        let equipment = opusIe + (95 - opusIe) * lossPercent / (lossPercent + opusBpl)
        return min(max(93.2 - delayImpairment - equipment, 0), 93.2)
    }

    /// The mean opinion score (1…4.5) for an R-factor.
    public static func mos(rFactor r: Double) -> Double {
        guard r > 0 else { return 1 }
        guard r < 100 else { return 4.5 }
        return min(max(1 + 0.035 * r + 7e-6 * r * (r - 60) * (100 - r), 1), 4.5)
    }
}
