// `polyvoice doctor --network` against a bridge that hands out a real coturn: the TURN allocation and the
// STUN binding are checked from here, and a rejected token fails the check without printing it.
import Foundation
import PolyVoiceTesting
import Testing

@Suite("polyvoice doctor --network", .serialized)
struct DoctorNetworkTests {
    @Test func checksTheBridgeAndItsTURNServer() async throws {
        let coturn = try CoturnServer()
        let secretFile = try CallRelayCommandTests.secretFile(coturn.secret)
        defer { try? FileManager.default.removeItem(at: secretFile) }
        let bridge = try BridgeProcess(extraArguments: ["--turn", coturn.url, "--turn-secret-file", secretFile.path])
        defer { bridge.stop() }
        let result = try await runPolyvoice(
            [
                "doctor", "--network", "--environment", "local:\(bridge.port)", "--ice-server",
                "stun:127.0.0.1:\(coturn.port)", "--json",
            ],
            environment: ["POLYVOICE_WEBRTC_TOKEN": BridgeProcess.token])
        #expect(result.status == 0, "\(result.stdout)")
        struct Report: Decodable {
            struct Check: Decodable {
                var name: String
                var status: String
                var detail: String
            }
            var ok: Bool
            var checks: [Check]
        }
        let report = try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8))
        #expect(report.ok)
        let turn = try #require(report.checks.first { $0.name == "turn 127.0.0.1:\(coturn.port)" })
        #expect(turn.status == "pass" && turn.detail.hasPrefix("relay 127.0.0.1:"), "\(turn.detail)")
        let stun = try #require(report.checks.first { $0.name == "stun 127.0.0.1:\(coturn.port)" })
        #expect(stun.status == "pass" && stun.detail.hasPrefix("server-reflexive address 127.0.0.1:"))
        #expect(!result.stdout.contains(coturn.secret))
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
