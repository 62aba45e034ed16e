// Provisioned TURN URLs → relays: UDP, TCP (`?transport=tcp`) and TLS (`turns:`, default port 5349).
import PolyCore
import PolyNet
import PolySession
import PolySignaling
import Testing

@testable import PolyVoice

@Suite struct TURNServerResolverTests {
    static let quiet = Logger(level: .error, sink: .handler { _ in }, redactor: Redactor())

    @Test func acceptsUDPTCPAndTLSAndSkipsDTLS() async {
        let server = ICEServer(
            urls: [
                "turn:192.0.2.1", "turn:192.0.2.1:3479?transport=tcp", "turns:192.0.2.1",
                "turns:192.0.2.1:443?transport=tcp", "turns:192.0.2.1?transport=udp",
            ], username: "1700000000:call", credential: "c2VjcmV0")
        let relays = await TURNServerResolver.resolve([server], trustedCAFile: "/tmp/ca.pem", logger: Self.quiet)
        #expect(relays.map(\.relayProtocol) == [.udp, .tcp, .tls, .tls])
        #expect(relays.map(\.client.server.port) == [3478, 3479, 5349, 443])
        #expect(relays.map(\.client.transport) == [.udp, .stream, .stream, .stream])
        #expect(
            relays.map(\.client.serverName) == ["192.0.2.1:3478", "192.0.2.1:3479", "192.0.2.1:5349", "192.0.2.1:443"])
        #expect(relays.allSatisfy { $0.hostName == "192.0.2.1" && $0.trustedCAFile == "/tmp/ca.pem" })
        #expect(relays.allSatisfy { $0.client.password == "c2VjcmV0" })
    }
}
