// A host's software in the simulated network: typically a thin adapter around a sans-IO core.
import PolyCore
import PolyNet

/// A UDP datagram in the simulated network.
public struct SimDatagram: Sendable, Equatable {
    public var source: TransportAddress
    public var destination: TransportAddress
    public var payload: [UInt8]

    public init(source: TransportAddress, destination: TransportAddress, payload: [UInt8]) {
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
    func addressChanged(from old: TransportAddress, to new: TransportAddress, at now: Instant)
}

extension SimulationNode {
    public func addressChanged(from old: TransportAddress, to new: TransportAddress, at now: Instant) {}
}
