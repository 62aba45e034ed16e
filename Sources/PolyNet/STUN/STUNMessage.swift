// A STUN message (RFC 8489): method, class, transaction id and typed attributes.
import PolyCore

/// The class of a STUN message (two bits of the message type).
public enum STUNClass: UInt8, Hashable, Sendable {
    case request = 0b00
    case indication = 0b01
    case successResponse = 0b10
    case errorResponse = 0b11
}

/// A STUN method; ICE uses only Binding.
public struct STUNMethod: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue & 0x0FFF }
    public static let binding = STUNMethod(rawValue: 0x001)
}

/// A decoded or to-be-encoded STUN message.
///
/// Decoding (`init(decoding:)`) checks the header, every attribute length and the FINGERPRINT;
/// MESSAGE-INTEGRITY needs the key, so it is checked afterwards with `verifyIntegrity(of:key:)`.
public struct STUNMessage: Hashable, Sendable {
    public static let magicCookie: UInt32 = 0x2112_A442
    static let fingerprintXor: UInt32 = 0x5354_554E
    public static let headerLength = 20

    public var method: STUNMethod
    public var messageClass: STUNClass
    public var transactionID: STUNTransactionID
    /// Attributes in wire order, without MESSAGE-INTEGRITY and FINGERPRINT (see the flags below).
    public var attributes: [STUNAttribute]

    /// Set by the decoder: where MESSAGE-INTEGRITY started and the HMAC it carried.
    var integrityOffset: Int?
    var integrityMAC: [UInt8] = []
    /// Set by the decoder when a (valid) FINGERPRINT was present.
    public internal(set) var hasFingerprint = false
    /// Comprehension-required attribute types the decoder did not understand (answer 420 to requests).
    public internal(set) var unknownRequiredAttributes: [UInt16] = []

    public init(
        method: STUNMethod = .binding, messageClass: STUNClass, transactionID: STUNTransactionID,
        attributes: [STUNAttribute] = []
    ) {
        self.method = method
        self.messageClass = messageClass
        self.transactionID = transactionID
        self.attributes = attributes
    }

    public var hasIntegrity: Bool { integrityOffset != nil }

    /// The first attribute matching `extract`, e.g. `message.first { if case .priority(let p) = $0 { p } else { nil } }`.
    public func first<T>(_ extract: (STUNAttribute) -> T?) -> T? {
        for attribute in attributes { if let value = extract(attribute) { return value } }
        return nil
    }

    public var username: String? { first { if case .username(let u) = $0 { u } else { nil } } }
    public var priority: UInt32? { first { if case .priority(let p) = $0 { p } else { nil } } }
    public var useCandidate: Bool { attributes.contains(.useCandidate) }
    public var iceControlling: UInt64? { first { if case .iceControlling(let t) = $0 { t } else { nil } } }
    public var iceControlled: UInt64? { first { if case .iceControlled(let t) = $0 { t } else { nil } } }
    public var xorMappedAddress: TransportAddress? {
        first { if case .xorMappedAddress(let a) = $0 { a } else { nil } }
    }
    /// XOR-MAPPED-ADDRESS, falling back to MAPPED-ADDRESS (old servers).
    public var mappedAddress: TransportAddress? {
        xorMappedAddress ?? first { if case .mappedAddress(let a) = $0 { a } else { nil } }
    }
    public var errorCode: (code: Int, reason: String)? {
        first { if case .errorCode(let c, let r) = $0 { (c, r) } else { nil } }
    }

    public static func == (lhs: STUNMessage, rhs: STUNMessage) -> Bool {
        lhs.method == rhs.method && lhs.messageClass == rhs.messageClass
            && lhs.transactionID == rhs.transactionID && lhs.attributes == rhs.attributes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(transactionID)
        hasher.combine(attributes)
    }

    /// Cheap check (RFC 7983 first byte 0–3, cookie, size) before attempting a full decode.
    public static func looksLikeSTUN(_ bytes: some RandomAccessCollection<UInt8>) -> Bool {
        guard bytes.count >= headerLength else { return false }
        let start = bytes.startIndex
        func at(_ i: Int) -> UInt8 { bytes[bytes.index(start, offsetBy: i)] }
        return at(0) < 4 && at(4) == 0x21 && at(5) == 0x12 && at(6) == 0xA4 && at(7) == 0x42
    }
}
