// Whole relay-only calls through a real coturn over TURN/TCP and TURN/TLS (RFC 8656 §10.2 client-to-server
// streams): the bridge hands out `turn:…?transport=tcp` or `turns:…` with REST-API credentials, and the
// caller's media goes through the stream. A server whose certificate is not trusted fails the relay, loudly.
import Foundation
import PolyAudio
import PolyVoiceBridge
import PolyVoiceTesting
import Testing

@testable import PolyVoice

@Suite("Calls through a TURN relay over TCP and TLS (coturn)", .serialized)
struct RelayStreamCallTests {
    @Test func relayOnlyCallEchoesSpeechOverTURNTCP() async throws {
        let coturn = try CoturnServer()
        try await RelayCallTests.expectRelayedEcho(coturn: coturn, turnURL: coturn.tcpURL, relayProtocol: "tcp")
    }

    @Test func relayOnlyCallEchoesSpeechOverTURNTLS() async throws {
        let coturn = try CoturnServer(tls: true)
        let tlsURL = try #require(coturn.tlsURL)
        try await RelayCallTests.expectRelayedEcho(
            coturn: coturn, turnURL: tlsURL, relayProtocol: "tls", trustedCAFile: coturn.certificatePath)
    }

    /// Nothing listens on the TCP port: the refused connect is the relay's failure, named, and a relay-only
    /// call has no path.
    @Test func aRefusedTURNTCPConnectFailsTheRelayNamingTheServer() async throws {
        let probe = try TCPProbe.closedPort()
        let (bridge, port) = try RelayCallTests.bridge(
            turn: BridgeTURNServers(urls: ["turn:127.0.0.1:\(probe)?transport=tcp"], secret: "unused"))
        defer { bridge.stop() }
        let text = try await Self.relayOnlyFailure(port: port)
        #expect(
            text.contains("TURN server 127.0.0.1:\(probe) over TCP: connect to 127.0.0.1:\(probe): Connection refused"))
    }

    /// Starts a relay-only call with null audio and returns the text of its `.transport` failure.
    static func relayOnlyFailure(port: Int) async throws -> String {
        var options = VoiceOptions(input: .null, output: .null)
        options.iceTransportPolicy = .relay
        let call = try PolyVoice.call(
            config: Configuration(
                apiKey: "relay-api-key", environment: .local(port: port), webrtcToken: ShellHarness.token),
            options: options)
        try? await call.start()
        let state = await Wait.state(of: call, timeout: .seconds(15)) {
            if case .failed = $0 { true } else { false }
        }
        await call.end()
        guard case .failed(.transport(let text)) = state else {
            Issue.record("expected a transport failure, got \(String(describing: state))")
            return ""
        }
        return text
    }

    /// The certificate is self-signed and not trusted: the relay fails naming the server and the reason, and
    /// a relay-only call has no path (a `.transport` error), rather than going on unverified.
    @Test func untrustedTLSCertificateFailsTheRelayNamingTheServer() async throws {
        let coturn = try CoturnServer(tls: true)
        let tlsURL = try #require(coturn.tlsURL)
        let tlsPort = try #require(coturn.tlsPort)
        let (bridge, port) = try RelayCallTests.bridge(turn: BridgeTURNServers(urls: [tlsURL], secret: coturn.secret))
        defer { bridge.stop() }
        let text = try await Self.relayOnlyFailure(port: port)
        print("untrusted TURN/TLS: \(text)")
        #expect(text.contains("TURN server 127.0.0.1:\(tlsPort) over TLS"))
        #expect(text.contains("certificate verification failed"))
        #expect(!text.contains(coturn.secret))
    }
}

/// A TCP port on 127.0.0.1 that nothing listens on (bound once by the kernel's choice, then closed).
enum TCPProbe {
    static func closedPort() throws -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        try #require(bound)
        return UInt16(bigEndian: address.sin_port)
    }
}
