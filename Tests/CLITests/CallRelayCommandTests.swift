// `polyvoice bridge --turn … --turn-secret-file` and `polyvoice call --relay-only` against a real coturn:
// the call's media goes through the relay, the JSON says so, and no TURN secret or credential is printed.
import Foundation
import PolyVoiceTesting
import Testing

@Suite("polyvoice call through TURN", .serialized)
struct CallRelayCommandTests {
    static func secretFile(_ secret: String) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pv-turn-secret-\(UUID().uuidString)")
        try "# coturn static-auth-secret\n\(secret)\n".write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test func relayOnlyCallGoesThroughCoturnAndSaysSo() async throws {
        let coturn = try CoturnServer()
        let secretFile = try Self.secretFile(coturn.secret)
        defer { try? FileManager.default.removeItem(at: secretFile) }
        let bridge = try BridgeProcess(extraArguments: ["--turn", coturn.url, "--turn-secret-file", secretFile.path])
        defer { bridge.stop() }
        let result = try await runPolyvoice(
            [
                "call", "--environment", "local:\(bridge.port)", "--input", "null", "--output", "null", "--duration",
                "2", "--relay-only", "--json", "--verbose",
            ],
            environment: ["POLYVOICE_WEBRTC_TOKEN": BridgeProcess.token])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try #require(result.stdout.split(separator: "\n").last { $0.contains(#""type":"summary""#) })
        #expect(summary.contains(#""localCandidateType":"relay""#), "\(summary)")
        #expect(summary.contains(#""relayProtocol":"udp""#))
        #expect(!result.stdout.contains(coturn.secret) && !result.stderr.contains(coturn.secret))
    }

    @Test func relayOnlyWithRefusedCredentialsFailsAtOnceNamingTheServer() async throws {
        let coturn = try CoturnServer()
        let secretFile = try Self.secretFile("not-the-secret-of-this-coturn")
        defer { try? FileManager.default.removeItem(at: secretFile) }
        let bridge = try BridgeProcess(extraArguments: ["--turn", coturn.url, "--turn-secret-file", secretFile.path])
        defer { bridge.stop() }
        let began = Date()
        let result = try await runPolyvoice(
            ["call", "--environment", "local:\(bridge.port)", "--input", "null", "--output", "null", "--relay-only"],
            environment: ["POLYVOICE_WEBRTC_TOKEN": BridgeProcess.token])
        #expect(result.status == 4, "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains("TURN server 127.0.0.1:\(coturn.port) rejected the credentials (401)"))
        // Gathering ends when the allocation fails, not at the connect timeout (30 s).
        #expect(Date().timeIntervalSince(began) < 10)
    }

    @Test func relayOnlyCallOverTURNTLSTrustsTheCAFileAndSaysSo() async throws {
        let coturn = try CoturnServer(tls: true)
        let tlsURL = try #require(coturn.tlsURL)
        let secretFile = try Self.secretFile(coturn.secret)
        defer { try? FileManager.default.removeItem(at: secretFile) }
        let bridge = try BridgeProcess(extraArguments: ["--turn", tlsURL, "--turn-secret-file", secretFile.path])
        defer { bridge.stop() }
        let call = [
            "call", "--environment", "local:\(bridge.port)", "--input", "null", "--output", "null", "--duration", "2",
            "--relay-only", "--json",
        ]
        let trusted = try await runPolyvoice(
            call + ["--turn-ca-file", coturn.certificatePath],
            environment: ["POLYVOICE_WEBRTC_TOKEN": BridgeProcess.token])
        #expect(trusted.status == 0, "\(trusted.stderr)")
        let summary = try #require(trusted.stdout.split(separator: "\n").last { $0.contains(#""type":"summary""#) })
        #expect(summary.contains(#""relayProtocol":"tls""#), "\(summary)")
        // Without the CA the self-signed certificate does not verify: a network failure naming the server.
        let untrusted = try await runPolyvoice(call, environment: ["POLYVOICE_WEBRTC_TOKEN": BridgeProcess.token])
        #expect(untrusted.status == 4, "\(untrusted.stdout) \(untrusted.stderr)")
        let port = try #require(coturn.tlsPort)
        #expect(
            untrusted.stdout.contains("TURN server 127.0.0.1:\(port) over TLS: certificate verification failed"),
            "\(untrusted.stdout)")
    }

    @Test func turnOptionsNeedTheirSecretFromAFile() async throws {
        let noSecret = try await runPolyvoice(["bridge", "--turn", "turn:127.0.0.1:3478"])
        #expect(noSecret.status == 2)
        #expect(noSecret.stderr.contains("--turn-secret-file"))
        let badURL = try await runPolyvoice(
            ["call", "--environment", "local:1", "--ice-server", "http://x"],
            environment: ["POLYVOICE_WEBRTC_TOKEN": "abc12345"])
        #expect(badURL.status == 2)
        #expect(badURL.stderr.contains("--ice-server"))
    }
}
