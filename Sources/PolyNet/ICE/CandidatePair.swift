// A candidate pair on the checklist (RFC 8445 §6.1.2) and its check state.

/// Identifies a pair by the addresses that matter on the wire: local base and remote address.
struct PairKey: Hashable, Sendable {
    var local: TransportAddress
    var remote: TransportAddress
}

struct CandidatePair: Sendable {
    enum State: Sendable { case frozen, waiting, inProgress, succeeded, failed }

    var local: Candidate
    var remote: Candidate
    var state: State
    var priority: UInt64 = 0
    /// Nominated (USE-CANDIDATE acknowledged, or received on a valid pair).
    var nominated = false
    /// Controlled side: USE-CANDIDATE arrived before our own check on this pair succeeded.
    var nominateOnSuccess = false

    var key: PairKey { PairKey(local: local.address, remote: remote.address) }
    var foundation: String { local.foundation + ":" + remote.foundation }

    /// RFC 8445 §6.1.2.3: 2^32·min(G,D) + 2·max(G,D) + (G>D ? 1 : 0), G = controlling side's priority.
    static func priority(local: UInt32, remote: UInt32, role: ICERole) -> UInt64 {
        let (g, d) = role == .controlling ? (UInt64(local), UInt64(remote)) : (UInt64(remote), UInt64(local))
        return (min(g, d) << 32) + 2 * max(g, d) + (g > d ? 1 : 0)
    }
}
