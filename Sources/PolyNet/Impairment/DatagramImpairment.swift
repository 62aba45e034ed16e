// The sans-IO part of impairing a call's own datagrams: each datagram offered (with the time) is passed on
// now, dropped, or copied into a delay queue that the shell drains at `nextDeadline`. The shell owns the
// clock and the timer; nothing here blocks, and queued copies reuse their buffers.
import PolyCore

/// Impairs both directions of one call's datagrams with seeded `ImpairmentModel`s. Owned by one shell
/// on its loop thread.
public struct DatagramImpairment {
    public enum Direction: Sendable, Equatable {
        /// From us to the far end.
        case send
        /// From the far end to us.
        case receive
    }

    /// What became of an offered datagram.
    public enum Fate: Sendable, Equatable {
        /// Pass it on now, unchanged (no copy was made).
        case now
        case dropped
        /// Copied into the queue: `popDue(at:)` returns it at its delivery time.
        case queued
    }

    /// A delayed datagram.
    public struct Datagram: Sendable {
        public var bytes: [UInt8]
        public var from: TransportAddress
        public var to: TransportAddress
        public var direction: Direction
    }

    public let configuration: NetworkImpairment
    private var sendModel: ImpairmentModel
    private var receiveModel: ImpairmentModel
    private var queue = DelayQueue<Datagram>()
    /// Buffers of delivered datagrams, reused for the next copies.
    private var spare: [[UInt8]] = []
    /// At most this many datagrams wait at once; more are dropped (and counted) rather than held unbounded.
    public let maximumQueued: Int
    /// Datagrams dropped because the queue was full.
    public private(set) var overflowed = 0

    /// Models start at `start`: outages count from it.
    public init(_ configuration: NetworkImpairment, start: Instant, maximumQueued: Int = 4096) {
        self.configuration = configuration
        sendModel = ImpairmentModel(
            configuration.send.linkImpairment, seed: configuration.seed(for: .send), start: start)
        receiveModel = ImpairmentModel(
            configuration.receive.linkImpairment, seed: configuration.seed(for: .receive), start: start)
        self.maximumQueued = maximumQueued
        spare.reserveCapacity(64)
    }

    /// What each direction's model did so far.
    public func counters(_ direction: Direction) -> ImpairmentCounters {
        direction == .send ? sendModel.counters : receiveModel.counters
    }

    /// When the next queued datagram is due.
    public var nextDeadline: Instant? { queue.nextDue }

    public var queuedCount: Int { queue.count }

    /// Decides the datagram's fate; a delayed one is copied (the caller's buffer is not kept).
    public mutating func offer(
        _ bytes: UnsafeRawBufferPointer, from: TransportAddress, to: TransportAddress, direction: Direction,
        at now: Instant
    ) -> Fate {
        let decision =
            direction == .send
            ? sendModel.decide(packetAt: now, size: bytes.count)
            : receiveModel.decide(packetAt: now, size: bytes.count)
        guard let delivery = decision.first else { return .dropped }
        if delivery <= now { return .now }
        guard queue.count < maximumQueued else {
            overflowed += 1
            return .dropped
        }
        var copy = spare.popLast() ?? []
        copy.removeAll(keepingCapacity: true)
        copy.append(contentsOf: bytes)
        queue.insert(Datagram(bytes: copy, from: from, to: to, direction: direction), due: delivery)
        return .queued
    }

    /// The next datagram due at `now`, if any. Hand its bytes back with `recycle` once sent.
    public mutating func popDue(at now: Instant) -> Datagram? { queue.popDue(at: now)?.element }

    /// Returns a delivered datagram's buffer for reuse.
    public mutating func recycle(_ bytes: [UInt8]) {
        if spare.count < 256 { spare.append(bytes) }
    }
}
