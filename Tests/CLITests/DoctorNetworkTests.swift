// `polyvoice doctor --network` against a bridge that hands out a real coturn: the TURN allocation and the
// STUN binding are checked from here, and a rejected token fails the check without printing it.
import Foundation
import PolyVoiceTesting
import Testing

@Suite("polyvoice doctor --network", .serialized)
struct DoctorNetworkTests {
    struct Report: Decodable {
        struct Check: Decodable {
            var name: String
            var status: String
            var detail: String
        }
        var ok: Bool
        var checks: [Check]
    }

    /// `doctor --network --json` against a bridge handing out coturn over UDP, TCP and TLS.
    static func doctor(_ coturn: CoturnServer, extra: [String] = []) async throws -> (Report, String) {
        let secretFile = try CallRelayCommandTests.secretFile(coturn.secret)
        defer { try? FileManager.default.removeItem(at: secretFile) }
        let urls = [coturn.url, coturn.tcpURL] + (coturn.tlsURL.map { [$0] } ?? [])
        let bridge = try BridgeProcess(
            extraArguments: urls.flatMap { ["--turn", $0] } + ["--turn-secret-file", secretFile.path])
        defer { bridge.stop() }
        let result = try await runPolyvoice(
            [
                "doctor", "--network", "--environment", "local:\(bridge.port)", "--ice-server",
                "stun:127.0.0.1:\(coturn.port)", "--json",
            ] + extra,
            environment: ["POLYVOICE_WEBRTC_TOKEN": BridgeProcess.token])
        #expect(!result.stdout.contains(coturn.secret))
        return (try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8)), result.stdout)
    }

    @Test func checksTheBridgeAndItsTURNServersOverUDPTCPAndTLS() async throws {
        let coturn = try CoturnServer(tls: true)
        let (report, output) = try await Self.doctor(coturn, extra: ["--turn-ca-file", coturn.certificatePath])
        #expect(report.ok, "\(output)")
        let tlsPort = try #require(coturn.tlsPort)
        for name in [
            "turn 127.0.0.1:\(coturn.port)", "turn 127.0.0.1:\(coturn.port)?transport=tcp",
            "turns 127.0.0.1:\(tlsPort)?transport=tcp",
        ] {
            let turn = try #require(report.checks.first { $0.name == name }, "no check \(name): \(output)")
            #expect(turn.status == "pass" && turn.detail.hasPrefix("relay 127.0.0.1:"), "\(name): \(turn.detail)")
        }
        let stun = try #require(report.checks.first { $0.name == "stun 127.0.0.1:\(coturn.port)" })
        #expect(stun.status == "pass" && stun.detail.hasPrefix("server-reflexive address 127.0.0.1:"))
    }

    @Test func aTURNSCertificateNobodyTrustsIsAWarningThatSaysSo() async throws {
        let coturn = try CoturnServer(tls: true)
        let (report, output) = try await Self.doctor(coturn)
        let tlsPort = try #require(coturn.tlsPort)
        let turns = try #require(report.checks.first { $0.name == "turns 127.0.0.1:\(tlsPort)?transport=tcp" })
        #expect(turns.status == "warn", "\(output)")
        #expect(turns.detail.lowercased().contains("certificate"), "\(turns.detail)")
        // TURN over UDP and TCP still work: the report says which path is left.
        #expect(report.checks.first { $0.name == "turn 127.0.0.1:\(coturn.port)?transport=tcp" }?.status == "pass")
    }

    @Test func aRejectedTokenFailsWithoutPrintingIt() async throws {
        let bridge = try BridgeProcess()
        defer { bridge.stop() }
        let token = "doctor-wrong-token-61c2"
        let result = try await runPolyvoice(
            ["doctor", "--network", "--environment", "local:\(bridge.port)"],
            environment: ["POLYVOICE_WEBRTC_TOKEN": token])
        #expect(result.status == 1)
        #expect(result.stdout.contains("(401)"))
        #expect(!result.stdout.contains(token) && !result.stderr.contains(token))
    }
}
