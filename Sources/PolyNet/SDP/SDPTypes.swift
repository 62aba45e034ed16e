// Typed forms of the SDP attributes WebRTC audio needs (RFC 8866, RFC 8839, RFC 8842, RFC 4145).

/// Media direction (RFC 8866 §6.7).
public enum SDPDirection: String, Hashable, Sendable, CaseIterable {
    case sendrecv, sendonly, recvonly, inactive

    /// The direction an answerer uses for an offered one (RFC 3264 §6.1).
    public var reversed: SDPDirection {
        switch self {
        case .sendonly: .recvonly
        case .recvonly: .sendonly
        case .sendrecv, .inactive: self
        }
    }

    public var sends: Bool { self == .sendrecv || self == .sendonly }
    public var receives: Bool { self == .sendrecv || self == .recvonly }

    public init(sends: Bool, receives: Bool) {
        self = sends ? (receives ? .sendrecv : .sendonly) : (receives ? .recvonly : .inactive)
    }
}

/// DTLS role negotiation (RFC 4145, RFC 8842).
public enum SDPSetup: String, Hashable, Sendable, CaseIterable {
    case actpass, active, passive, holdconn
}

/// `a=rtpmap:<pt> <encoding>/<clock>[/<channels>]`.
public struct RTPMap: Hashable, Sendable {
    public var payloadType: Int
    public var encoding: String
    public var clockRate: Int
    public var channels: Int?

    public init(payloadType: Int, encoding: String, clockRate: Int, channels: Int? = nil) {
        self.payloadType = payloadType
        self.encoding = encoding
        self.clockRate = clockRate
        self.channels = channels
    }

    public init?(_ value: String) {
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let pt = Int(parts[0]), (0...127).contains(pt) else { return nil }
        let codec = parts[1].split(separator: "/")
        guard codec.count >= 2, codec.count <= 3, let clock = Int(codec[1]), clock > 0 else { return nil }
        var channels: Int?
        if codec.count == 3 {
            guard let count = Int(codec[2]), count > 0 else { return nil }
            channels = count
        }
        self.init(payloadType: pt, encoding: String(codec[0]), clockRate: clock, channels: channels)
    }

    var value: String { "\(payloadType) \(encoding)/\(clockRate)" + (channels.map { "/\($0)" } ?? "") }

    public var isOpus: Bool { encoding.lowercased() == "opus" && clockRate == 48000 }
}

/// `a=fingerprint:<hash> <hex:hex:...>` of the DTLS certificate.
public struct SDPFingerprint: Hashable, Sendable {
    /// Lower-case hash name, e.g. "sha-256".
    public var algorithm: String
    public var bytes: [UInt8]

    public init(algorithm: String, bytes: [UInt8]) {
        self.algorithm = algorithm.lowercased()
        self.bytes = bytes
    }

    public init?(_ value: String) {
        let parts = value.split(separator: " ")
        guard parts.count == 2 else { return nil }
        var bytes: [UInt8] = []
        for octet in parts[1].split(separator: ":", omittingEmptySubsequences: false) {
            guard octet.count == 2, let byte = UInt8(octet, radix: 16) else { return nil }
            bytes.append(byte)
        }
        guard !bytes.isEmpty else { return nil }
        self.init(algorithm: String(parts[0]), bytes: bytes)
    }

    /// Upper-case colon-separated hex, as browsers write it.
    public var hex: String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined(separator: ":")
    }

    var value: String { "\(algorithm) \(hex)" }
}

/// `a=extmap:<id>[/<direction>] <uri> [<attributes>]` (RFC 8285).
public struct SDPExtmap: Hashable, Sendable {
    public var id: Int
    public var direction: SDPDirection?
    public var uri: String
    public var extensionAttributes: String?

    public init?(_ value: String) {
        let parts = value.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2 else { return nil }
        let idPart = parts[0].split(separator: "/")
        guard let id = Int(idPart[0]), (1...255).contains(id) else { return nil }
        if idPart.count == 2 {
            guard let direction = SDPDirection(rawValue: String(idPart[1])) else { return nil }
            self.direction = direction
        } else if idPart.count > 2 {
            return nil
        }
        self.id = id
        uri = String(parts[1])
        extensionAttributes = parts.count == 3 ? String(parts[2]) : nil
    }
}
