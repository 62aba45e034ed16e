// What one direction of a link does to packets: the configuration of an `ImpairmentModel`.

/// How packets are lost.
public enum LossModel: Sendable, Equatable {
    case none
    /// Each packet is lost independently with this probability (0…1).
    case uniform(Double)
    /// Bursty loss.
    case gilbertElliott(GilbertElliott)
}

/// The shape of the random part of the delay.
public enum JitterDistribution: Sendable, Equatable {
    /// Normal with the configured standard deviation.
    case normal
    /// Pareto (shape 3: heavy tail, finite variance) centred on zero, with the configured standard deviation.
    case pareto
}

/// The impairments of one direction of a link, like a netem qdisc: loss, delay + jitter, duplication,
/// scheduled outages and an optional rate limit.
public struct LinkImpairment: Sendable, Equatable {
    public var loss: LossModel
    /// Fixed one-way delay added to every packet.
    public var delay: Duration
    /// Standard deviation of the random delay added on top of `delay` (delays never go below zero).
    public var jitter: Duration
    public var jitterDistribution: JitterDistribution
    /// When true a packet never overtakes an earlier one; otherwise jitter reorders packets as netem does.
    public var keepsOrder: Bool
    /// Probability (0…1) that a packet is delivered twice.
    public var duplication: Double
    /// Windows, relative to the model's start, during which every packet is dropped.
    public var outages: [Range<Duration>]
    /// Serialization rate in bits per second (nil: unlimited). Packets queue behind each other.
    public var rateBitsPerSecond: Int?

    public init(
        loss: LossModel = .none, delay: Duration = .zero, jitter: Duration = .zero,
        jitterDistribution: JitterDistribution = .normal, keepsOrder: Bool = false, duplication: Double = 0,
        outages: [Range<Duration>] = [], rateBitsPerSecond: Int? = nil
    ) {
        self.loss = loss
        self.delay = delay
        self.jitter = jitter
        self.jitterDistribution = jitterDistribution
        self.keepsOrder = keepsOrder
        self.duplication = duplication
        self.outages = outages
        self.rateBitsPerSecond = rateBitsPerSecond
    }

    /// A perfect link: no loss, no delay.
    public static let perfect = LinkImpairment()
}
