// One TURN server of a client endpoint: the TURN client's settings and how the shell reaches the server.
import PolyNet

/// How the endpoint's bytes reach a TURN server (W3C `RTCIceCandidateStats.relayProtocol`).
public enum TURNRelayProtocol: String, Hashable, Sendable {
    /// Datagrams from a host UDP socket (`turn:…`, `?transport=udp`).
    case udp
    /// A TCP connection the shell opens (`turn:…?transport=tcp`).
    case tcp
    /// TLS over TCP (`turns:…`), the certificate verified against `hostName`.
    case tls
}

/// A TURN server for `MediaEndpointConfiguration.turnServers`.
public struct TURNRelayServer: Sendable, CustomStringConvertible {
    /// The TURN client's configuration; its `transport` follows `relayProtocol`.
    public var client: TURNClientConfiguration
    public var relayProtocol: TURNRelayProtocol
    /// TLS: the DNS name or IP literal the server's certificate must carry (the URL's host).
    public var hostName: String
    /// TLS: a PEM file of CA certificates trusted besides the system store.
    public var trustedCAFile: String?

    public init(
        client: TURNClientConfiguration, relayProtocol: TURNRelayProtocol = .udp, hostName: String? = nil,
        trustedCAFile: String? = nil
    ) {
        var client = client
        client.transport = relayProtocol == .udp ? .udp : .stream
        self.client = client
        self.relayProtocol = relayProtocol
        self.hostName = hostName ?? "\(client.server.ip)"
        self.trustedCAFile = trustedCAFile
    }

    /// e.g. `turn.example.org:5349 over TLS` (never a credential).
    public var description: String { "\(client.serverName) over \(relayProtocol.rawValue.uppercased())" }
}

/// A stream the endpoint asks the shell to open to a TCP or TLS TURN server (`MediaOutput.openStream`).
public struct RelayStream: Hashable, Sendable {
    /// Names the stream in `streamTransmit`, `streamReceived` and `streamClosed`.
    public var id: Int
    public var server: TransportAddress
    /// How errors name the server.
    public var serverName: String
    /// `.tcp` or `.tls`.
    public var relayProtocol: TURNRelayProtocol
    public var hostName: String
    public var trustedCAFile: String?

    public init(
        id: Int, server: TransportAddress, serverName: String, relayProtocol: TURNRelayProtocol, hostName: String,
        trustedCAFile: String?
    ) {
        self.id = id
        self.server = server
        self.serverName = serverName
        self.relayProtocol = relayProtocol
        self.hostName = hostName
        self.trustedCAFile = trustedCAFile
    }
}
