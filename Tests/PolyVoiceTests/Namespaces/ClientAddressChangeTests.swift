// Issue #9's address-change scenario made real: the reference bridge in one network namespace, the client
// (`polyvoice call --json`, file audio) in another, joined by a veth pair. Mid-call the client's namespace gets
// a new address and loses the old one; the client's netlink NetworkMonitor sees it, restarts ICE through the
// bridge's iceRestartUrl, and the call goes on: reconnecting → connected, audio continues, not ended early.
// Needs root and network namespaces (CI runs as root): without them the test fails and says so.
import Foundation
import PolyAudio
import PolyVoiceTesting
import Testing

@Suite("Client address change in network namespaces", .serialized, .timeLimit(.minutes(2)))
struct ClientAddressChangeTests {
    /// One NDJSON event of `polyvoice call --json`.
    struct Event: Decodable {
        var type: String
        var state: String?
        var result: String?
        var exitCode: Int32?
        var packetsReceived: UInt64?
        var speakerDBFS: Double?
        var error: String?
    }

    static func event(_ line: String) -> Event? { try? JSONDecoder().decode(Event.self, from: Data(line.utf8)) }

    static func isState(_ state: String) -> (String) -> Bool {
        { line in event(line).map { $0.type == "state" && $0.state == state } ?? false }
    }

    @Test("the client's address changes mid-call: ICE restart, reconnecting → connected, audio goes on")
    func addressChangeRestartsICE() async throws {
        let namespaces: NamespacePair
        do {
            namespaces = try NamespacePair.create()
        } catch {
            Issue.record("network namespaces unavailable: \(error)")
            return
        }
        defer { namespaces.destroy() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "polyvoice-netns-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tokenFile = directory.appendingPathComponent("token")
        try "netns-test-token-7c21\n".write(to: tokenFile, atomically: true, encoding: .utf8)
        // 30 s of speech, so the echo is audible all through the call.
        let speech = try WAVFile.readPipelineSamples(from: try SpeechFixtures().speech(.male))
        var long: [Int16] = []
        while long.count < 30 * 48_000 { long += speech }
        let input = directory.appendingPathComponent("input.wav")
        try WAVFile(sampleRate: 48_000, layout: .mono, samples: .int16(long)).write(to: input)
        let binary = NamespacePair.polyvoiceBinary().path
        #expect(FileManager.default.isExecutableFile(atPath: binary), "build polyvoice first (swift build)")

        let bridge = try LineProcess(
            NamespacePair.inNamespace(
                namespaces.bridgeNamespace,
                [
                    binary, "bridge", "--host", namespaces.bridgeIP, "--port", "0", "--agent", "echo", "--token-file",
                    tokenFile.path,
                ]))
        defer { bridge.stop() }
        let listening = try #require(
            await bridge.waitForLine(timeout: .seconds(20)) { $0.contains("listening on http://") },
            "the bridge did not start in its namespace")
        let bridgeURL = try #require(
            bridge.lines[listening].split(separator: " ").first { $0.hasPrefix("http://") }.map(String.init))

        let client = try LineProcess(
            NamespacePair.inNamespace(
                namespaces.clientNamespace,
                [
                    binary, "call", "--bridge", bridgeURL, "--token-file", tokenFile.path, "--input", input.path,
                    "--output", directory.appendingPathComponent("output.wav").path, "--duration", "22", "--json",
                ]))
        defer { client.stop() }
        let connected = try #require(
            await client.waitForLine(timeout: .seconds(20), Self.isState("connected")), "the call never connected")
        try await Task.sleep(for: .seconds(4))

        let before = client.lines.count
        try namespaces.moveClient()
        let movedAt = ContinuousClock.now
        let reconnecting = try #require(
            await client.waitForLine(from: before, timeout: .seconds(8), Self.isState("reconnecting")),
            "no reconnecting state after the address change")
        let reconnected = try #require(
            await client.waitForLine(from: reconnecting, timeout: .seconds(15), Self.isState("connected")),
            "the call did not come back to connected")
        let recoveredAfter = ContinuousClock.now - movedAt
        try await Task.sleep(for: .seconds(5))

        // Audio continues after the restart: packets keep arriving after the reconnection at the rate they did before the move (the rate itself
        // depends on the machine's load: the debug-build audio clocks fall behind on two busy cores).
        func perSecond(_ lines: ArraySlice<String>) -> (rate: Double, total: UInt64) {
            let counts = lines.compactMap(Self.event).filter { $0.type == "stats" }.compactMap(\.packetsReceived)
            // The counter restarts if the bridge's stream is replaced: count what arrived between samples.
            let total = zip(counts, counts.dropFirst()).reduce(UInt64(0)) { $0 + ($1.1 >= $1.0 ? $1.1 - $1.0 : $1.1) }
            return (Double(total) / Double(max(1, counts.count - 1)), total)
        }
        let beforeMove = perSecond(client.lines[connected..<before])
        let afterMove = perSecond(client.lines[reconnected...])
        let after = client.lines[reconnected...].compactMap(Self.event).filter { $0.type == "stats" }
        #expect(after.count >= 3)
        #expect(afterMove.total > 20)
        #expect(
            afterMove.rate >= 0.6 * beforeMove.rate,
            "packets per second before the move \(beforeMove.rate), after the reconnection \(afterMove.rate)")
        #expect(after.compactMap { $0.speakerDBFS }.max() ?? -100 > -45)  // the echoed speech is heard

        let summaryIndex = try #require(
            await client.waitForLine(from: reconnected, timeout: .seconds(30)) { Self.event($0)?.type == "summary" },
            "the call did not end with a summary")
        let summary = try #require(Self.event(client.lines[summaryIndex]))
        #expect(summary.result == "ended" && summary.exitCode == 0, "\(summary.error ?? "")")
        #expect(await client.waitForExit(timeout: .seconds(10)) == 0)
        // Nothing between connecting and the hang-up ended or failed the call.
        let states = client.lines[connected..<summaryIndex].compactMap(Self.event).filter { $0.type == "state" }
            .compactMap(\.state)
        #expect(!states.contains("failed") && !states.dropLast().contains("ended"))
        print(
            "netns address change: connected again \(recoveredAfter) after the address moved; states \(states);",
            "packets/s before \(beforeMove.rate), after \(afterMove.rate)")
    }
}
