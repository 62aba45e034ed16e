// A host's software in the simulated network: typically a thin adapter around a sans-IO core.
import PolyCore

/// A UDP datagram in the simulated network.
public struct SimDatagram: Sendable, Equatable {
    public var source: IPv4Endpoint
    public var destination: IPv4Endpoint
    public var payload: [UInt8]

    public init(source: IPv4Endpoint, destination: IPv4Endpoint, payload: [UInt8]) {
        self.source = source
        self.destination = destination
        self.payload = payload
    }
}

/// What a host runs: an ICE agent, a DTLS endpoint, an RTP sender, a whole call endpoint...
/// The network calls these on the scheduler's virtual time; none of them may block or read a clock.
public protocol SimulationNode: AnyObject {
    /// A datagram arrived at one of the host's addresses.
    func handle(datagram: SimDatagram, at now: Instant)
    /// The clock reached `nextDeadline()`.
    func handleTimeout(at now: Instant)
    /// The next datagram to send, if any (called until it returns nil).
    func pollTransmit(at now: Instant) -> SimDatagram?
    /// When the node next needs `handleTimeout`, or nil.
    func nextDeadline() -> Instant?
    /// The host's address `old` was replaced by `new` (like an interface change seen by a netlink monitor).
    func addressChanged(from old: IPv4Endpoint, to new: IPv4Endpoint, at now: Instant)
}

extension SimulationNode {
    public func addressChanged(from old: IPv4Endpoint, to new: IPv4Endpoint, at now: Instant) {}
}
