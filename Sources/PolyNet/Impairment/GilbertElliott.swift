// Bursty loss: the two-state Gilbert–Elliott channel used by netem's "loss gemodel".

/// Parameters of a Gilbert–Elliott loss channel. Each packet first moves the state (good→bad with
/// probability `p`, bad→good with `r`), then is lost with the current state's loss probability.
public struct GilbertElliott: Sendable, Equatable {
    /// Probability of moving from the good to the bad state, per packet.
    public var p: Double
    /// Probability of moving from the bad to the good state, per packet.
    public var r: Double
    /// Loss probability while in the bad state (1 − h in the literature).
    public var lossInBad: Double
    /// Loss probability while in the good state (1 − k in the literature).
    public var lossInGood: Double

    public init(p: Double, r: Double, lossInBad: Double = 1, lossInGood: Double = 0) {
        self.p = p
        self.r = r
        self.lossInBad = lossInBad
        self.lossInGood = lossInGood
    }

    /// A channel that loses `meanLoss` (0…1) of packets in bursts of `meanBurstLength` packets on average
    /// (bad state loses everything, good state nothing: a burst is a stay in the bad state, mean 1/r).
    public init(meanLoss: Double, meanBurstLength: Double) {
        let loss = min(max(meanLoss, 0), 0.999)
        let r = 1 / max(meanBurstLength, 1)
        self.init(p: r * loss / (1 - loss), r: r)
    }

    /// The long-run fraction of packets lost.
    public var meanLoss: Double {
        let total = p + r
        guard total > 0 else { return lossInGood }
        let bad = p / total
        return bad * lossInBad + (1 - bad) * lossInGood
    }
}
