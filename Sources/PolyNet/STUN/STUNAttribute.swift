// The STUN attributes ICE needs (RFC 8489, RFC 8445 §16), as typed values.

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
    /// An attribute kept verbatim (only produced when encoding; e.g. for tests).
    case other(type: UInt16, value: [UInt8])

    /// Attribute type codes.
    public enum Code {
        public static let mappedAddress: UInt16 = 0x0001
        public static let username: UInt16 = 0x0006
        public static let messageIntegrity: UInt16 = 0x0008
        public static let errorCode: UInt16 = 0x0009
        public static let unknownAttributes: UInt16 = 0x000A
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
        case .other(let type, _): type
        }
    }
}
