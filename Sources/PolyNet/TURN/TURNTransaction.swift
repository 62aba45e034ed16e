// An outstanding request of the TURN client: what it was for, its bytes and its retransmission schedule.
import PolyCore

struct TURNTransaction: Sendable {
    enum Purpose: Hashable, Sendable {
        case allocate
        /// Refresh with a non-zero LIFETIME: keeps the allocation.
        case refresh
        /// Refresh with LIFETIME 0 after `.deallocate`.
        case deallocate
        /// Refresh with LIFETIME 0 to clear a stale allocation on our 5-tuple (437 to Allocate), then Allocate.
        case clearStale
        case createPermission(IPAddress)
        case channelBind(TransportAddress, channel: UInt16)
    }

    var purpose: Purpose
    var method: STUNMethod
    /// The request's own attributes, without the credential ones: a 401 or 438 resends them with (new) ones.
    var attributes: [STUNAttribute]
    var bytes: [UInt8]
    /// Sent with USERNAME, REALM, NONCE and MESSAGE-INTEGRITY.
    var authenticated: Bool
    /// 438 answers already followed for this request (bounded, so a confused server cannot loop us).
    var staleNonceRetries: Int
    var rto: Duration
    var transmissionsLeft: Int
    /// When to retransmit (UDP) or, with no transmissions left, to give up.
    var deadline: Instant
}
