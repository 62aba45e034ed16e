// An in-process UDP network in virtual time: hosts, impaired links per direction, address changes.
import PolyCore
import PolyNet

/// Identifies a host in a `SimulatedNetwork`.
public struct SimHostID: Hashable, Sendable {
    public let index: Int
}

/// Counters of the whole network.
public struct SimNetworkCounters: Sendable, Equatable {
    /// Datagrams handed to the network by nodes.
    public var sent = 0
    /// Datagrams that reached a node.
    public var delivered = 0
    /// Datagrams dropped by a link's impairment (loss or outage).
    public var droppedByLink = 0
    /// Datagrams that arrived for an address no host has (e.g. an address given up by a move).
    public var undeliverable = 0
    /// Datagrams a node sent from an address its host does not have.
    public var unroutableSource = 0
}

/// Hosts exchanging datagrams through links with an `ImpairmentModel` per direction. Add it to a
/// `SimulationScheduler`: it delivers datagrams at their arrival times and fires the nodes' timers.
public final class SimulatedNetwork: SimulationParticipant {
    private struct Host {
        let node: any SimulationNode
        var addresses: [TransportAddress]
    }

    private struct Link: Hashable {
        let from: SimHostID
        let to: SimHostID
    }

    private struct AddressChange {
        let host: SimHostID
        let old: TransportAddress
        let new: TransportAddress
    }

    /// Instant the links' outage windows are measured from.
    public let start: Instant
    /// Used by links without their own impairment.
    public var defaultImpairment: LinkImpairment
    public private(set) var counters = SimNetworkCounters()
    /// Called for each datagram delivered (for traces and assertions).
    public var onDelivery: ((SimDatagram, Instant) -> Void)?

    private let seed: UInt64
    private var hosts: [Host] = []
    private var owners: [TransportAddress: SimHostID] = [:]
    private var links: [Link: ImpairmentModel] = [:]
    private var inFlight = DelayQueue<(to: SimHostID, datagram: SimDatagram)>()
    private var addressChanges = DelayQueue<AddressChange>()

    public init(seed: UInt64 = 1, start: Instant = .zero, defaultImpairment: LinkImpairment = .perfect) {
        self.seed = seed
        self.start = start
        self.defaultImpairment = defaultImpairment
    }

    /// Attaches `node` at `addresses` (each address belongs to one host at a time).
    @discardableResult
    public func addHost(_ node: any SimulationNode, addresses: [TransportAddress]) -> SimHostID {
        let id = SimHostID(index: hosts.count)
        hosts.append(Host(node: node, addresses: addresses))
        for address in addresses {
            precondition(owners[address] == nil, "address \(address) already belongs to a host")
            owners[address] = id
        }
        return id
    }

    /// The host's current addresses.
    public func addresses(of host: SimHostID) -> [TransportAddress] { hosts[host.index].addresses }

    /// Sets the impairment of the direction `from` → `to`, seeded so each link has its own random stream.
    public func setImpairment(_ impairment: LinkImpairment, from: SimHostID, to: SimHostID, seed: UInt64? = nil) {
        let linkSeed = seed ?? self.seed &* 0x9E37_79B9 &+ UInt64(from.index << 16 | to.index)
        links[Link(from: from, to: to)] = ImpairmentModel(impairment, seed: linkSeed, start: start)
    }

    /// Sets the same impairment in both directions between two hosts (each direction its own stream).
    public func setImpairment(_ impairment: LinkImpairment, between a: SimHostID, and b: SimHostID) {
        setImpairment(impairment, from: a, to: b)
        setImpairment(impairment, from: b, to: a)
    }

    /// The counters of the direction `from` → `to` (zero if no datagram crossed it yet).
    public func linkCounters(from: SimHostID, to: SimHostID) -> ImpairmentCounters {
        links[Link(from: from, to: to)]?.counters ?? ImpairmentCounters()
    }

    /// At `instant`, the host gives up `old` and takes `new`: datagrams to `old` are lost from then on,
    /// and datagrams it sends from `old` leave from `new`. The node is told through `addressChanged`.
    public func changeAddress(
        of host: SimHostID, from old: TransportAddress, to new: TransportAddress, at instant: Instant
    ) {
        addressChanges.insert(AddressChange(host: host, old: old, new: new), due: instant)
    }

    // MARK: SimulationParticipant

    public func nextDeadline() -> Instant? {
        var earliest = inFlight.nextDue
        earliest.formEarliest(addressChanges.nextDue)
        for host in hosts { earliest.formEarliest(host.node.nextDeadline()) }
        return earliest
    }

    public func step(at now: Instant) -> Bool {
        var worked = false
        while let change = addressChanges.popDue(at: now) {
            apply(change.element, at: now)
            worked = true
        }
        while let item = inFlight.popDue(at: now) {
            deliver(item.element.datagram, to: item.element.to, at: now)
            worked = true
        }
        for host in hosts {
            if let due = host.node.nextDeadline(), due <= now {
                host.node.handleTimeout(at: now)
                worked = true
            }
        }
        for index in hosts.indices {
            while let datagram = hosts[index].node.pollTransmit(at: now) {
                send(datagram, from: SimHostID(index: index), at: now)
                worked = true
            }
        }
        return worked
    }

    // MARK: Private

    private func apply(_ change: AddressChange, at now: Instant) {
        var host = hosts[change.host.index]
        guard let slot = host.addresses.firstIndex(of: change.old) else { return }
        host.addresses[slot] = change.new
        hosts[change.host.index] = host
        owners[change.old] = nil
        owners[change.new] = change.host
        host.node.addressChanged(from: change.old, to: change.new, at: now)
    }

    private func send(_ datagram: SimDatagram, from sender: SimHostID, at now: Instant) {
        counters.sent += 1
        var datagram = datagram
        let own = hosts[sender.index].addresses
        if !own.contains(datagram.source) {
            // A socket bound to a vanished address: with one address the kernel would use the new one.
            guard own.count == 1 else {
                counters.unroutableSource += 1
                return
            }
            datagram.source = own[0]
        }
        guard let receiver = owners[datagram.destination] else {
            counters.undeliverable += 1
            return
        }
        let link = Link(from: sender, to: receiver)
        if links[link] == nil { setImpairment(defaultImpairment, from: sender, to: receiver) }
        let decision = links[link]!.decide(packetAt: now, size: datagram.payload.count)
        if decision.isLost { counters.droppedByLink += 1 }
        for arrival in decision.deliveries {
            inFlight.insert((receiver, datagram), due: arrival)
        }
    }

    private func deliver(_ datagram: SimDatagram, to receiver: SimHostID, at now: Instant) {
        // The destination must still belong to the receiver when the datagram arrives.
        guard owners[datagram.destination] == receiver else {
            counters.undeliverable += 1
            return
        }
        counters.delivered += 1
        onDelivery?(datagram, now)
        hosts[receiver.index].node.handle(datagram: datagram, at: now)
    }
}
