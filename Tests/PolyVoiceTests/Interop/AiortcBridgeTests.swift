// aiortc as the caller of our reference bridge (issue 7's interop): it provisions, publishes its offer,
// pulls the agent's line per PROTOCOL.md, and hears its own tone back from the echo agent.
import Foundation
import InteropSupport
import PolyCore
import PolyVoiceBridge
import Testing

@Suite("aiortc calls the reference bridge", .serialized, .timeLimit(.minutes(2)))
struct AiortcBridgeTests {
    static let token = "interop-web-calling-token"
    static let tone = 1_000.0

    @Test("aiortc → bridge (echo agent): its tone comes back on the pulled line")
    func aiortcHearsItsToneThroughTheEchoAgent() async throws {
        let bridge = Bridge(
            configuration: BridgeConfiguration(
                tokens: [Self.token], agent: .echo(delayMilliseconds: 0), media: .transport(),
                log: BridgeLog(level: .warn)))
        let port = try bridge.start()
        defer { bridge.stop() }
        let peer = try AiortcPeer()
        do {
            let callID = try await peer.callBridge(
                url: "http://127.0.0.1:\(port)/", token: Self.token, mode: "echo", tone: Self.tone)
            #expect(callID.hasPrefix("call-"))
            #expect(try await peer.wait(for: "connected", seconds: 10) == "connected")
            // At least ~2 s of echoed tone (more on a loaded machine), then measure what aiortc heard.
            var report = try await peer.report(skip: 0.5)
            let deadline = Instant.now() + .seconds(30)
            while Instant.now() < deadline, (report.packetsReceived ?? 0) < 150 {
                try await Task.sleep(for: .milliseconds(500))
                report = try await peer.report(skip: 0.5)
            }
            #expect((report.packetsReceived ?? 0) >= 150, "aiortc received \(report.packetsReceived ?? 0) packets")
            #expect(abs((report.frequency ?? 0) - Self.tone) < 5, "aiortc heard \(report.frequency ?? 0) Hz")
            #expect((report.rms ?? 0) > 500, "echo level \(report.rms ?? 0)")
            #expect(bridge.activeCalls == 1)
            try await peer.hangUp()
        } catch {
            await peer.quit()
            throw error
        }
        await peer.quit()
    }
}
