// What the relay did to the traffic, per direction.

/// Counters of one direction of the relay.
public struct RelayDirectionCounters: Sendable, Equatable, CustomStringConvertible {
    /// Datagrams that entered the relay in this direction.
    public var received = 0
    /// Datagrams sent out (duplicates included).
    public var forwarded = 0
    /// Datagrams dropped by random loss.
    public var lost = 0
    /// Datagrams dropped because they arrived during an outage window.
    public var droppedInOutage = 0
    /// Extra copies sent.
    public var duplicated = 0

    public init() {}

    /// Every datagram dropped, for whatever reason.
    public var dropped: Int { lost + droppedInOutage }

    public var description: String {
        "received \(received) forwarded \(forwarded) dropped \(dropped) (loss \(lost), outage \(droppedInOutage))"
            + " duplicated \(duplicated)"
    }
}

/// Counters of both directions: `up` is client → upstream, `down` is upstream → client.
public struct RelayCounters: Sendable, Equatable, CustomStringConvertible {
    public var up = RelayDirectionCounters()
    public var down = RelayDirectionCounters()
    /// Distinct client addresses seen (each has its own upstream socket).
    public var clients = 0

    public init() {}

    public var description: String {
        "up   (client → upstream): \(up)\ndown (upstream → client): \(down)\nclients: \(clients)"
    }
}
