// What a `TURNClient` takes in and gives out, and the states of its allocation.
import PolyCore

/// An input to `TURNClient.handle(_:at:)`.
public enum TURNInput: Sendable {
    /// Begin: send the first Allocate request (without credentials, to learn REALM and NONCE).
    case start
    /// Bytes from the server: one datagram (`.udp`) or whatever a stream read returned (`.stream`). Feed only
    /// what came from `configuration.server` (on UDP the shell checks the source address).
    case received([UInt8])
    /// Relay `bytes` to `peer`: a ChannelData message once a channel is bound, a Send indication otherwise.
    /// Creates the peer IP's permission first if needed (the bytes wait for it). Dropped unless allocated.
    case send([UInt8], to: TransportAddress)
    /// Install (and keep refreshing) a permission for `peer`'s IP without sending anything yet.
    case permit(IPAddress)
    /// Bind a channel to `peer` (e.g. ICE's selected relay pair) and keep it refreshed.
    case bindChannel(TransportAddress)
    /// Release the allocation (Refresh with LIFETIME 0); `.closed` follows once the server answered.
    case deallocate
}

/// An output of `TURNClient.pollOutput(at:)`.
public enum TURNOutput: Hashable, Sendable {
    /// Bytes for the server: one datagram (`.udp`) or bytes to write to the stream (`.stream`).
    case transmit([UInt8])
    /// The allocation exists. `mapped` (XOR-MAPPED-ADDRESS) is a server-reflexive candidate when present.
    /// Emitted again, with a new relayed address, after a re-allocation (437 recovery).
    case allocated(relayed: TransportAddress, mapped: TransportAddress?, lifetime: Duration)
    /// The server installed (or refreshed for the first time) the permission for this IP.
    case permissionCreated(IPAddress)
    /// A channel is bound to `peer`: data to and from it now travels as ChannelData.
    case channelBound(TransportAddress, channel: UInt16)
    /// Application data relayed from `peer` (a Data indication or ChannelData).
    case data([UInt8], from: TransportAddress)
    /// A permission could not be created; data queued for that IP was dropped. The allocation lives on.
    case permissionFailed(IPAddress, TURNError)
    /// A channel could not be bound; data to `peer` keeps going as Send indications.
    case channelBindFailed(TransportAddress, TURNError)
    /// The allocation failed or was lost; the client stops (no more outputs or deadlines).
    case failed(TURNError)
    /// The allocation was released after `.deallocate`.
    case closed
}

/// Where a `TURNClient` is in its life.
public enum TURNClientState: Hashable, Sendable {
    case idle
    /// An Allocate transaction is under way.
    case allocating
    case allocated(relayed: TransportAddress)
    /// `.deallocate` was handled and the Refresh with LIFETIME 0 is under way.
    case deallocating
    case closed
    case failed(TURNError)
}
