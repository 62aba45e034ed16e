// A bad line on a call's own packets, as a caller configures it: loss (bursty or not), delay, jitter and
// outages per direction, seeded. The transport shell applies it (`DatagramImpairment`); no relay process.
import PolyCore

/// Seeded impairment of one call's datagrams, in each direction (`VoiceOptions.networkImpairment`).
/// It applies from the moment the call's media connects, so setup is clean and outages count from there.
public struct NetworkImpairment: Sendable, Equatable {
    /// What one direction does to packets.
    public struct Link: Sendable, Equatable {
        /// The long-run fraction of packets lost, 0 ≤ loss < 1.
        public var loss: Double
        /// Mean length of a loss burst in packets (≥ 1; 1 loses packets independently).
        public var meanBurstLength: Double
        /// Fixed one-way delay.
        public var delay: Duration
        /// Standard deviation of a normal random delay on top of `delay` (packets may reorder, as with netem).
        public var jitter: Duration
        /// Windows, in seconds since media connected, in which every packet is dropped.
        public var outages: [Range<Double>]

        public init(
            loss: Double = 0, meanBurstLength: Double = 1, delay: Duration = .zero, jitter: Duration = .zero,
            outages: [Range<Double>] = []
        ) {
            self.loss = loss
            self.meanBurstLength = meanBurstLength
            self.delay = delay
            self.jitter = jitter
            self.outages = outages
        }

        /// A clean direction.
        public static let clean = Link()

        public var isClean: Bool { self == .clean }

        /// The model's configuration: Gilbert–Elliott loss for bursts, uniform otherwise.
        public var linkImpairment: LinkImpairment {
            var link = LinkImpairment(delay: delay, jitter: jitter)
            if loss > 0 {
                link.loss =
                    meanBurstLength > 1
                    ? .gilbertElliott(GilbertElliott(meanLoss: loss, meanBurstLength: meanBurstLength))
                    : .uniform(loss)
            }
            link.outages = outages.map { outage in
                Duration.milliseconds(
                    Int64(outage.lowerBound * 1000))..<Duration.milliseconds(
                        Int64(outage.upperBound * 1000))
            }
            return link
        }

        func validate(_ name: String) throws(NetworkImpairmentError) {
            guard loss >= 0, loss < 1 else {
                throw .invalid("\(name) loss must be at least 0 and below 1, not \(loss)")
            }
            guard meanBurstLength >= 1, meanBurstLength <= 1000 else {
                throw .invalid("\(name) mean burst length must be 1-1000 packets, not \(meanBurstLength)")
            }
            for (value, what) in [(delay, "delay"), (jitter, "jitter")] where value < .zero || value > .seconds(10) {
                throw .invalid("\(name) \(what) must be 0-10 s, not \(value)")
            }
            for outage in outages
            where outage.lowerBound < 0 || !outage.lowerBound.isFinite || !outage.upperBound.isFinite {
                throw .invalid("\(name) outage \(outage) must start at 0 s or later and end at a finite time")
            }
        }
    }

    /// What our packets go through on the way out.
    public var send: Link
    /// What the far end's packets go through on the way in.
    public var receive: Link
    /// Seeds both directions' models (each its own stream): the same seed gives the same losses.
    public var seed: UInt64

    /// The same impairment both ways.
    public init(
        loss: Double = 0, meanBurstLength: Double = 1, delay: Duration = .zero, jitter: Duration = .zero,
        outages: [Range<Double>] = [], seed: UInt64 = 1
    ) {
        let link = Link(loss: loss, meanBurstLength: meanBurstLength, delay: delay, jitter: jitter, outages: outages)
        self.init(send: link, receive: link, seed: seed)
    }

    public init(send: Link = .clean, receive: Link = .clean, seed: UInt64 = 1) {
        self.send = send
        self.receive = receive
        self.seed = seed
    }

    /// Throws a message naming the direction and the value out of range.
    public func validate() throws(NetworkImpairmentError) {
        try send.validate("send")
        try receive.validate("receive")
    }

    /// The seed of one direction's model.
    func seed(for direction: DatagramImpairment.Direction) -> UInt64 {
        direction == .send ? seed : seed &+ 0x9E37_79B9_7F4A_7C15
    }
}

/// A network impairment the transport cannot apply.
public enum NetworkImpairmentError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalid(String)

    /// What is wrong, naming the direction and the value.
    public var reason: String {
        switch self {
        case .invalid(let why): why
        }
    }

    public var description: String { "network impairment: \(reason)" }
}
