// Sans-IO demultiplexing of a bridge's shared media port: which call a datagram belongs to. A STUN
// binding request names the call by the bridge's ICE ufrag (the first half of USERNAME); everything
// else is routed by the remote address remembered when a check of that call succeeded.
import PolyCore
import PolyNet

/// The routing table of one shared media port. Plain value, no I/O; the port's shell drives it on its
/// loop thread. Lookups of media (RTP, RTCP, DTLS) allocate nothing; STUN is decoded with the strict
/// `STUNMessage` parser, which never trusts a length.
public struct MediaPortDemux: Sendable {
    /// A call's handle in the table.
    public typealias CallID = UInt64

    /// Where a datagram goes.
    public enum Route: Equatable, Sendable {
        case call(CallID)
        case drop(DropReason)
    }

    /// Why a datagram was dropped.
    public enum DropReason: Equatable, Sendable {
        /// A STUN binding request whose USERNAME names no current call.
        case unknownUfrag
        /// Not a routable STUN request, from an address no successful check has mapped.
        case unknownSource
        /// STUN that does not decode, or a binding request without a `local:remote` USERNAME.
        case malformed
    }

    private var callOfUfrag: [String: CallID] = [:]
    /// Per call: the current ufrag and, during an ICE restart, the previous one (the agent still answers it).
    private var ufragsOfCall: [CallID: [String]] = [:]
    private var callOfAddress: [TransportAddress: CallID] = [:]

    public init() {}

    /// The call's local ufrag is now `ufrag` (start or ICE restart). The one before stays routable until the
    /// next change, so checks of the old generation still reach the call.
    public mutating func setUfrag(_ ufrag: String, for call: CallID) {
        var known = ufragsOfCall[call] ?? []
        guard known.last != ufrag else { return }
        known.append(ufrag)
        while known.count > 2 { callOfUfrag.removeValue(forKey: known.removeFirst()) }
        ufragsOfCall[call] = known
        callOfUfrag[ufrag] = call
    }

    /// A check of `call` from `remote` succeeded (the call answered it): media from `remote` is the call's.
    public mutating func checkSucceeded(call: CallID, remote: TransportAddress) {
        guard ufragsOfCall[call] != nil else { return }
        callOfAddress[remote] = call
    }

    /// Forgets the call's ufrags and addresses.
    public mutating func remove(call: CallID) {
        for ufrag in ufragsOfCall.removeValue(forKey: call) ?? [] { callOfUfrag.removeValue(forKey: ufrag) }
        callOfAddress = callOfAddress.filter { $0.value != call }
    }

    /// The call a datagram from `source` belongs to, or why it is dropped.
    public func route(_ datagram: UnsafeRawBufferPointer, from source: TransportAddress) -> Route {
        guard DatagramKind.classify(datagram) == .stun else {
            return callOfAddress[source].map(Route.call) ?? .drop(.unknownSource)
        }
        let message: STUNMessage
        do { message = try STUNMessage(decoding: Array(datagram)) } catch { return .drop(.malformed) }
        guard message.method == .binding, message.messageClass == .request else {
            return callOfAddress[source].map(Route.call) ?? .drop(.unknownSource)
        }
        guard let username = message.username, let colon = username.firstIndex(of: ":") else {
            return .drop(.malformed)
        }
        return callOfUfrag[String(username[..<colon])].map(Route.call) ?? .drop(.unknownUfrag)
    }

    /// True when `datagram` is a STUN Binding success response (type 0x0101 and the magic cookie): the
    /// answer to a check that passed MESSAGE-INTEGRITY.
    public static func isBindingSuccess(_ datagram: UnsafeRawBufferPointer) -> Bool {
        var reader = ByteReader(datagram)
        guard let type = try? reader.readUInt16(), (try? reader.readUInt16()) != nil,
            let cookie = try? reader.readUInt32()
        else { return false }
        return type == 0x0101 && cookie == STUNMessage.magicCookie
    }
}
