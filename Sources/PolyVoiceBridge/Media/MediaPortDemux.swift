// Sans-IO demultiplexing of a bridge's shared media port: which call a datagram belongs to. A STUN
// binding request names the call by the bridge's ICE ufrag (the first half of USERNAME); everything
// else is routed by the remote address remembered when a check of that call succeeded.
import PolyCore
import PolyNet

/// The routing table of one shared media port. Plain value, no I/O; the port's shell drives it on its
/// loop thread. Routing allocates nothing and does no cryptography, whatever arrives: media (RTP, RTCP,
/// DTLS) is one dictionary lookup by source address; a STUN binding request is walked in place (header,
/// then attribute headers, every length checked against the datagram) to its USERNAME, whose ufrag half is
/// looked up only when it is no longer than the longest ufrag in the table (so it fits a small string). A
/// flood from unknown sources therefore costs a lookup per datagram; the call's ICE agent decodes and
/// authenticates what is routed to it.
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
    /// The longest ufrag ever set (bytes): longer USERNAMEs name no call and are not turned into strings.
    private var longestUfrag = 0

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
        longestUfrag = max(longestUfrag, ufrag.utf8.count)
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
        switch Self.scanSTUN(datagram) {
        case .malformed: return .drop(.malformed)
        case .other: return callOfAddress[source].map(Route.call) ?? .drop(.unknownSource)
        case .bindingRequest(let ufrag):
            guard let ufrag else { return .drop(.malformed) }
            // Longer than any ufrag, or not ASCII (ICE ufrags are ALPHA / DIGIT / "+" / "/"): names no call.
            guard ufrag.count <= longestUfrag, !ufrag.contains(where: { $0 >= 0x80 }) else {
                return .drop(.unknownUfrag)
            }
            // At most `longestUfrag` bytes (8 for our agents): a small string, no heap allocation.
            let name = String(decoding: ufrag, as: UTF8.self)
            return callOfUfrag[name].map(Route.call) ?? .drop(.unknownUfrag)
        }
    }

    /// What a STUN-looking datagram is, from its header and attribute headers alone.
    enum STUNScan {
        /// The header or an attribute length does not fit the datagram (or STUN's rules).
        case malformed
        /// Well formed, but not a Binding request (responses, indications, other methods).
        case other
        /// A Binding request and the ufrag half of its USERNAME (nil: no USERNAME, or no ':' in it).
        case bindingRequest(ufrag: UnsafeRawBufferPointer?)
    }

    /// Walks the datagram in place: 20-byte header (top bits zero, magic cookie, length a multiple of 4
    /// that matches the datagram exactly), then attributes (type, length, value padded to 4), each length
    /// checked before it is used. No copy, no allocation.
    static func scanSTUN(_ datagram: UnsafeRawBufferPointer) -> STUNScan {
        let count = datagram.count
        guard count >= 20, datagram[0] & 0xC0 == 0 else { return .malformed }
        func u16(_ at: Int) -> Int { Int(datagram[at]) << 8 | Int(datagram[at + 1]) }
        let type = u16(0)
        let length = u16(2)
        let cookie = UInt32(u16(4)) << 16 | UInt32(u16(6))
        guard cookie == STUNMessage.magicCookie, length % 4 == 0, 20 + length == count else { return .malformed }
        var ufrag: UnsafeRawBufferPointer?
        var offset = 20
        while offset < count {
            guard count - offset >= 4 else { return .malformed }
            let attribute = u16(offset)
            let valueLength = u16(offset + 2)
            let padded = (valueLength + 3) & ~3
            guard count - offset - 4 >= padded else { return .malformed }
            if attribute == 0x0006, ufrag == nil {
                let value = UnsafeRawBufferPointer(rebasing: datagram[(offset + 4)..<(offset + 4 + valueLength)])
                if let colon = value.firstIndex(of: UInt8(ascii: ":")) {
                    ufrag = UnsafeRawBufferPointer(rebasing: value[..<colon])
                }
            }
            offset += 4 + padded
        }
        guard type == 0x0001 else { return .other }
        return .bindingRequest(ufrag: ufrag)
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
