// The sans-IO heart of both the simulator and the real relay: decides each packet's fate.
import Glibc
import PolyCore

/// What happened to one packet: when its copies arrive (none: lost; two: duplicated).
public struct ImpairmentDecision: Sendable, Equatable {
    public var first: Instant?
    public var duplicate: Instant?

    public static let lost = ImpairmentDecision(first: nil, duplicate: nil)

    public init(first: Instant?, duplicate: Instant?) {
        self.first = first
        self.duplicate = duplicate
    }

    public var isLost: Bool { first == nil }
    /// Delivery times in the order computed (the duplicate may arrive first).
    public var deliveries: [Instant] { [first, duplicate].compactMap { $0 } }
}

/// Counters of one direction.
public struct ImpairmentCounters: Sendable, Equatable {
    /// Packets offered to the model.
    public var offered = 0
    /// Packets dropped by loss (uniform or Gilbert–Elliott).
    public var lost = 0
    /// Packets dropped because they fell in an outage window.
    public var droppedInOutage = 0
    /// Extra copies made.
    public var duplicated = 0

    public init() {}

    /// Every packet dropped, for whatever reason.
    public var dropped: Int { lost + droppedInOutage }
    /// Packets let through (not counting duplicates).
    public var passed: Int { offered - dropped }
}

/// One direction of an impaired link as a deterministic, seeded state machine: feed it each packet's send
/// time and size, get back when (and whether) it arrives. No clock, no sockets.
public struct ImpairmentModel: Sendable {
    public let configuration: LinkImpairment
    /// Instant the outage windows are measured from.
    public let start: Instant
    public private(set) var counters = ImpairmentCounters()

    private var random: SeededRandom
    private var inBadState = false
    private var lastDelivery: Instant?
    private var transmitterFreeAt: Instant?

    public init(_ configuration: LinkImpairment, seed: UInt64, start: Instant = .zero) {
        self.configuration = configuration
        self.start = start
        self.random = SeededRandom(seed: seed)
    }

    /// Decides the fate of a packet of `size` bytes sent at `now`.
    public mutating func decide(packetAt now: Instant, size: Int) -> ImpairmentDecision {
        counters.offered += 1
        if isInOutage(now) {
            counters.droppedInOutage += 1
            return .lost
        }
        if losesPacket() {
            counters.lost += 1
            return .lost
        }
        let departure = serialize(size: size, at: now)
        var decision = ImpairmentDecision(first: deliveryTime(departure: departure), duplicate: nil)
        if configuration.duplication > 0, random.unit() < configuration.duplication {
            counters.duplicated += 1
            decision.duplicate = deliveryTime(departure: departure)
        }
        return decision
    }

    /// True if `now` falls in one of the configured outage windows.
    public func isInOutage(_ now: Instant) -> Bool {
        let elapsed = now - start
        return configuration.outages.contains { $0.contains(elapsed) }
    }

    private mutating func losesPacket() -> Bool {
        switch configuration.loss {
        case .none:
            return false
        case .uniform(let probability):
            return random.unit() < probability
        case .gilbertElliott(let channel):
            let move = random.unit()
            inBadState = inBadState ? move >= channel.r : move < channel.p
            return random.unit() < (inBadState ? channel.lossInBad : channel.lossInGood)
        }
    }

    /// With a rate limit, packets leave one after another; otherwise they leave at once.
    private mutating func serialize(size: Int, at now: Instant) -> Instant {
        guard let rate = configuration.rateBitsPerSecond, rate > 0 else { return now }
        let begin = max(now, transmitterFreeAt ?? now)
        let done = begin + .nanoseconds(Int64(size) * 8 * 1_000_000_000 / Int64(rate))
        transmitterFreeAt = done
        return done
    }

    private mutating func deliveryTime(departure: Instant) -> Instant {
        var delay = configuration.delay.totalNanoseconds
        let sigma = Double(configuration.jitter.totalNanoseconds)
        if sigma > 0 {
            delay += Int64(jitterSample(standardDeviation: sigma))
        }
        var arrival = departure + .nanoseconds(max(delay, 0))
        if configuration.keepsOrder, let last = lastDelivery, arrival < last {
            arrival = last
        }
        if configuration.keepsOrder { lastDelivery = arrival }
        return arrival
    }

    private mutating func jitterSample(standardDeviation sigma: Double) -> Double {
        switch configuration.jitterDistribution {
        case .normal:
            return random.normal(mean: 0, standardDeviation: sigma)
        case .pareto:
            // Pareto(shape 3, scale m): mean 1.5 m, standard deviation (√3 / 2) m.
            let scale = sigma / (3.0.squareRoot() / 2)
            let u = max(1 - random.unit(), .leastNonzeroMagnitude)
            return scale / pow(u, 1.0 / 3) - 1.5 * scale
        }
    }
}
