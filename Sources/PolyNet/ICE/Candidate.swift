// The ICE candidate model (RFC 8445 §5.1): host, server-reflexive, peer-reflexive and relay.

/// One ICE candidate, local or remote, as it appears in SDP (`a=candidate:`).
public struct Candidate: Hashable, Sendable, CustomStringConvertible {
    /// Candidate type. Relay candidates are allocated by the shell's TURN clients and handed to the agent.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        case host
        case serverReflexive = "srflx"
        case peerReflexive = "prflx"
        case relay

        /// RFC 8445 §5.1.2.2 recommended type preferences.
        public var typePreference: UInt32 {
            switch self {
            case .host: 126
            case .peerReflexive: 110
            case .serverReflexive: 100
            case .relay: 0
            }
        }
    }

    /// An `a=candidate` extension (`generation 0`, `network-id 1`, ...), kept for round trips.
    public struct Extension: Hashable, Sendable {
        public var name: String
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public var foundation: String
    /// 1 = RTP (with rtcp-mux the only component).
    public var component: Int
    /// Lower-case transport, normally "udp"; the agent pairs only UDP candidates.
    public var transport: String
    public var priority: UInt32
    public var address: TransportAddress
    public var kind: Kind
    /// `raddr`/`rport`: the base of a reflexive candidate or the host behind a relay.
    public var relatedAddress: TransportAddress?
    public var extensions: [Extension]

    public init(
        foundation: String, component: Int = 1, transport: String = "udp", priority: UInt32,
        address: TransportAddress, kind: Kind, relatedAddress: TransportAddress? = nil, extensions: [Extension] = []
    ) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.address = address
        self.kind = kind
        self.relatedAddress = relatedAddress
        self.extensions = extensions
    }

    /// RFC 8445 §5.1.2.1: 2^24·type + 2^8·local + (256 − component).
    public static func priority(kind: Kind, localPreference: UInt32, component: Int = 1) -> UInt32 {
        (kind.typePreference << 24) | ((localPreference & 0xFFFF) << 8) | UInt32(256 - min(max(component, 1), 256))
    }

    /// RFC 8445 §5.1.1.3: equal for candidates of the same type, base IP and STUN/TURN server.
    public static func foundation(kind: Kind, baseIP: IPAddress, server: TransportAddress?) -> String {
        var hash: UInt32 = 0x811C_9DC5  // FNV-1a
        let key =
            Array(kind.rawValue.utf8) + baseIP.bytes
            + (server.map { $0.ip.bytes + [UInt8($0.port >> 8), UInt8($0.port & 0xFF)] } ?? [])
        for byte in key { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
        return String(hash)
    }

    /// Host and relay candidates are their own base (RFC 8445 §5.1.1): checks and media are sent from them
    /// (a relay's through its TURN allocation). Reflexive ones share their host's base and are not paired.
    public var isOwnBase: Bool { kind == .host || kind == .relay }

    public var description: String { "\(kind.rawValue) \(address)" }
}
