// A client endpoint's TCP/TLS TURN relays, sans-IO: it asks the shell for the stream, writes the Allocate
// request to it, and turns the stream's failure into the relay's (and, relay-only, into "no path").
import PolyCore
import PolyNet
import Testing

@testable import PolySession

@Suite("MediaEndpoint TURN relays over streams (sans-IO)")
struct MediaEndpointStreamRelayTests {
    static let server = TransportAddress("192.0.2.7:5349")!

    static func endpoint(relayProtocol: TURNRelayProtocol, relayOnly: Bool) throws -> MediaEndpoint {
        var configuration = MediaEndpointConfiguration(
            role: .client, certificate: try DTLSCertificate.generate(), seed: 7)
        let client = TURNClientConfiguration(
            server: server, serverName: "turn.example.org:5349", transport: .udp, username: "user",
            password: "secret-password", randomSeed: 0)
        configuration.turnServers = [
            TURNRelayServer(client: client, relayProtocol: relayProtocol, hostName: "turn.example.org")
        ]
        configuration.relayOnly = relayOnly
        return try MediaEndpoint(configuration: configuration)
    }

    static func drain(_ endpoint: MediaEndpoint, at now: Instant) -> [MediaOutput] {
        var outputs: [MediaOutput] = []
        while let output = endpoint.pollOutput(at: now) { outputs.append(output) }
        return outputs
    }

    @Test func asksForAStreamAndWritesTheAllocateRequestToIt() throws {
        let endpoint = try Self.endpoint(relayProtocol: .tls, relayOnly: false)
        endpoint.handle(.localAddresses([TransportAddress("10.0.0.2:4000")!]), at: .zero)
        let outputs = Self.drain(endpoint, at: .zero)
        let expected = RelayStream(
            id: 0, server: Self.server, serverName: "turn.example.org:5349", relayProtocol: .tls,
            hostName: "turn.example.org", trustedCAFile: nil)
        #expect(outputs.first == .openStream(expected))
        let written = outputs.compactMap { if case .streamTransmit(let bytes, 0) = $0 { bytes } else { nil } }
        let allocate = try #require(written.first)
        let message = try STUNMessage(decoding: allocate)
        #expect(message.method == .allocate)
        // Nothing of the relay goes out as a datagram to the server.
        #expect(!outputs.contains { if case .transmit(_, _, let to) = $0 { to == Self.server } else { false } })
    }

    @Test func aFailedStreamFailsTheRelayAndARelayOnlyCallHasNoPath() throws {
        let endpoint = try Self.endpoint(relayProtocol: .tcp, relayOnly: true)
        endpoint.handle(.localAddresses([TransportAddress("10.0.0.2:4000")!]), at: .zero)
        _ = Self.drain(endpoint, at: .zero)
        endpoint.handle(.streamClosed(stream: 0, reason: "connect to 192.0.2.7:5349: Connection refused"), at: .zero)
        let outputs = Self.drain(endpoint, at: .milliseconds(10))
        let failure = "TURN server turn.example.org:5349 over TCP: connect to 192.0.2.7:5349: Connection refused"
        #expect(outputs.contains(.event(.relayFailed(failure))))
        let noPath = outputs.compactMap { if case .event(.noPath(let text)) = $0 { text } else { nil } }.first
        #expect(noPath?.contains(failure) == true)
        #expect(noPath?.contains("secret-password") == false)
        // The relay is given up: no more bytes for its stream.
        endpoint.handle(.timeout, at: .seconds(30))
        #expect(
            !Self.drain(endpoint, at: .seconds(30)).contains { if case .streamTransmit = $0 { true } else { false } })
    }
}
