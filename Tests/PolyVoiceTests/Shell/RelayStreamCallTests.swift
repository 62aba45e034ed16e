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
        let (bridge, port) = try RelayCallTests.bridge(
            turn: BridgeTURNServers(urls: [coturn.tcpURL], secret: coturn.secret))
        defer { bridge.stop() }
        let (stats, input, output) = try await RelayCallTests.echoCall(port: port, policy: .relay)
        #expect(stats.localCandidateType == "relay")
        #expect(stats.relayProtocol == "tcp")
        #expect(stats.packetsReceived > 100)
        let echo = Envelope.bestMatch(reference: input, degraded: output)
        print(
            String(
                format: "TURN/TCP echo: correlation %.2f, round trip %.0f ms", echo.correlation, echo.delayMilliseconds)
        )
        #expect(echo.correlation > 0.2)
    }

    @Test func relayOnlyCallEchoesSpeechOverTURNTLS() async throws {
        let coturn = try CoturnServer(tls: true)
        let tlsURL = try #require(coturn.tlsURL)
        let (bridge, port) = try RelayCallTests.bridge(turn: BridgeTURNServers(urls: [tlsURL], secret: coturn.secret))
        defer { bridge.stop() }
        let (stats, input, output) = try await RelayCallTests.echoCall(
            port: port, policy: .relay, trustedCAFile: coturn.certificatePath)
        #expect(stats.localCandidateType == "relay")
        #expect(stats.relayProtocol == "tls")
        #expect(stats.packetsReceived > 100)
        let echo = Envelope.bestMatch(reference: input, degraded: output)
        print(
            String(
                format: "TURN/TLS echo: correlation %.2f, round trip %.0f ms", echo.correlation, echo.delayMilliseconds)
        )
        #expect(echo.correlation > 0.2)
    }

    /// The certificate is self-signed and not trusted: the relay fails naming the server and the reason, and
    /// a relay-only call has no path (a `.transport` error), rather than going on unverified.
    @Test func untrustedTLSCertificateFailsTheRelayNamingTheServer() async throws {
        let coturn = try CoturnServer(tls: true)
        let tlsURL = try #require(coturn.tlsURL)
        let tlsPort = try #require(coturn.tlsPort)
        let (bridge, port) = try RelayCallTests.bridge(turn: BridgeTURNServers(urls: [tlsURL], secret: coturn.secret))
        defer { bridge.stop() }
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
        guard case .failed(.transport(let text)) = state else {
            Issue.record("expected a transport failure, got \(String(describing: state))")
            return
        }
        print("untrusted TURN/TLS: \(text)")
        #expect(text.contains("TURN server 127.0.0.1:\(tlsPort) over TLS"))
        #expect(text.contains("certificate verification failed"))
        #expect(!text.contains(coturn.secret))
        await call.end()
    }
}
