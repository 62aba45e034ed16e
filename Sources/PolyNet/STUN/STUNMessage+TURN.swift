// The TURN methods (RFC 8656 §17) and typed accessors for the TURN and long-term credential attributes.

extension STUNMethod {
    public static let allocate = STUNMethod(rawValue: 0x003)
    public static let refresh = STUNMethod(rawValue: 0x004)
    public static let send = STUNMethod(rawValue: 0x006)
    public static let data = STUNMethod(rawValue: 0x007)
    public static let createPermission = STUNMethod(rawValue: 0x008)
    public static let channelBind = STUNMethod(rawValue: 0x009)

    /// A short name for errors and logs ("Allocate", "Refresh", ...).
    public var name: String {
        switch self {
        case .binding: "Binding"
        case .allocate: "Allocate"
        case .refresh: "Refresh"
        case .send: "Send"
        case .data: "Data"
        case .createPermission: "CreatePermission"
        case .channelBind: "ChannelBind"
        default: "method 0x\(String(rawValue, radix: 16))"
        }
    }
}

extension STUNMessage {
    public var realm: String? { first { if case .realm(let r) = $0 { r } else { nil } } }
    public var nonce: String? { first { if case .nonce(let n) = $0 { n } else { nil } } }
    public var lifetime: UInt32? { first { if case .lifetime(let l) = $0 { l } else { nil } } }
    public var channelNumber: UInt16? { first { if case .channelNumber(let c) = $0 { c } else { nil } } }
    public var xorPeerAddress: TransportAddress? {
        first { if case .xorPeerAddress(let a) = $0 { a } else { nil } }
    }
    public var xorRelayedAddress: TransportAddress? {
        first { if case .xorRelayedAddress(let a) = $0 { a } else { nil } }
    }
    /// The DATA attribute of a Send or Data indication.
    public var data: [UInt8]? { first { if case .data(let d) = $0 { d } else { nil } } }
}
