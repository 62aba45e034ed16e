// The STUN attributes ICE and TURN need (RFC 8489, RFC 8445 §16, RFC 8656 §18), as typed values.

/// A STUN attribute. Unknown comprehension-optional attributes are skipped by the decoder.
public enum STUNAttribute: Hashable, Sendable {
    case mappedAddress(TransportAddress)
    case xorMappedAddress(TransportAddress)
    /// For ICE: `remoteUfrag:localUfrag` as the sender writes it.
    case username(String)
    case software(String)
    /// RFC 8489 §14.8: class*100+number, e.g. 487 role conflict.
    case errorCode(code: Int, reason: String)
    /// RFC 8445 §7.1.1: the priority a peer-reflexive candidate would get.
    case priority(UInt32)
    case useCandidate
    /// Tie-breakers for role conflicts (RFC 8445 §7.3.1.1).
    case iceControlling(UInt64)
    case iceControlled(UInt64)
    /// Long-term credentials (RFC 8489 §14.9, §14.10): the server's realm and its current nonce.
    case realm(String)
    case nonce(String)
    /// TURN (RFC 8656 §18): a channel number (0x4000–0x4FFF) in the high 16 bits, the rest RFFU.
    case channelNumber(UInt16)
    /// TURN: allocation or refresh lifetime in seconds.
    case lifetime(UInt32)
    /// TURN: the peer a Send/Data indication, CreatePermission or ChannelBind is about.
    case xorPeerAddress(TransportAddress)
    /// TURN: the application data of a Send or Data indication.
    case data([UInt8])
    /// TURN: the relayed transport address the server allocated.
    case xorRelayedAddress(TransportAddress)
    /// TURN: the protocol number of the relayed transport (17 = UDP) in the first byte.
    case requestedTransport(UInt8)
    /// An attribute kept verbatim: UNKNOWN-ATTRIBUTES when decoding, anything when encoding.
    case other(type: UInt16, value: [UInt8])

    /// Attribute type codes.
    public enum Code {
        public static let mappedAddress: UInt16 = 0x0001
        public static let username: UInt16 = 0x0006
        public static let messageIntegrity: UInt16 = 0x0008
        public static let errorCode: UInt16 = 0x0009
        public static let unknownAttributes: UInt16 = 0x000A
        public static let channelNumber: UInt16 = 0x000C
        public static let lifetime: UInt16 = 0x000D
        public static let xorPeerAddress: UInt16 = 0x0012
        public static let data: UInt16 = 0x0013
        public static let realm: UInt16 = 0x0014
        public static let nonce: UInt16 = 0x0015
        public static let xorRelayedAddress: UInt16 = 0x0016
        public static let requestedTransport: UInt16 = 0x0019
        public static let xorMappedAddress: UInt16 = 0x0020
        public static let priority: UInt16 = 0x0024
        public static let useCandidate: UInt16 = 0x0025
        public static let software: UInt16 = 0x8022
        public static let fingerprint: UInt16 = 0x8028
        public static let iceControlled: UInt16 = 0x8029
        public static let iceControlling: UInt16 = 0x802A
    }

    public var type: UInt16 {
        switch self {
        case .mappedAddress: Code.mappedAddress
        case .xorMappedAddress: Code.xorMappedAddress
        case .username: Code.username
        case .software: Code.software
        case .errorCode: Code.errorCode
        case .priority: Code.priority
        case .useCandidate: Code.useCandidate
        case .iceControlling: Code.iceControlling
        case .iceControlled: Code.iceControlled
        case .realm: Code.realm
        case .nonce: Code.nonce
        case .channelNumber: Code.channelNumber
        case .lifetime: Code.lifetime
        case .xorPeerAddress: Code.xorPeerAddress
        case .data: Code.data
        case .xorRelayedAddress: Code.xorRelayedAddress
        case .requestedTransport: Code.requestedTransport
        case .other(let type, _): type
        }
    }
}
