// An outstanding STUN request of the agent, with its retransmission schedule (RFC 8489 §6.2.1).
import PolyCore

struct STUNTransaction: Sendable {
    enum Purpose: Sendable {
        /// Binding request to a STUN server for a server-reflexive candidate.
        case gathering(base: TransportAddress, server: TransportAddress)
        case check(PairKey, useCandidate: Bool, role: ICERole)
        case consent(PairKey)
    }

    var purpose: Purpose
    var bytes: [UInt8]
    var from: TransportAddress
    var to: TransportAddress
    /// Password expected on the response's MESSAGE-INTEGRITY (nil for STUN servers).
    var responseKey: [UInt8]?
    var rto: Duration
    var transmissionsLeft: Int
    var nextTransmit: Instant
}
