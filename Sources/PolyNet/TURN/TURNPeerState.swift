// What the TURN client tracks per peer: a permission per IP, a channel per transport address.
import PolyCore

/// A permission the client keeps for one peer IP (RFC 8656 §9: 300 s, refreshed by CreatePermission).
struct TURNPermission: Sendable {
    var installed = false
    /// A CreatePermission for this IP is under way.
    var requesting = false
    var refreshAt: Instant?
    /// Data sent before the permission was installed, with its destination, sent once it is.
    var queued: [(bytes: [UInt8], peer: TransportAddress)] = []
}

/// A channel the client keeps bound to one peer (RFC 8656 §12: 600 s, refreshed by ChannelBind).
struct TURNChannel: Sendable {
    var number: UInt16
    var bound = false
    var requesting = false
    var refreshAt: Instant?
}
