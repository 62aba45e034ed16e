// Whole calls through a real TURN server: the reference bridge hands out coturn with per-call REST-API
// credentials, and the caller's media goes through the relay (TURN over UDP on 127.0.0.1).
import Foundation
import PolyAudio
import PolyMedia
import PolyVoiceBridge
import PolyVoiceTesting
import Testing

@testable import PolyVoice

@Suite("Calls through a TURN relay (coturn)", .serialized)
struct RelayCallTests {
    static func bridge(turn: BridgeTURNServers) throws -> (Bridge, Int) {
        var configuration = BridgeConfiguration(
            tokens: [ShellHarness.token], agent: .echo(delayMilliseconds: 0), media: .transport(),
            log: BridgeLog(level: .error))
        configuration.turn = turn
        let bridge = Bridge(configuration: configuration)
        return (bridge, try bridge.start())
    }

    /// Places an echo call with file audio and returns its stats just before hanging up, and the input and
    /// what came back.
    static func echoCall(port: Int, policy: ICETransportPolicy, trustedCAFile: String? = nil) async throws -> (
        MediaStatsSnapshot, [Int16], [Int16]
    ) {
        let speech = try SpeechFixtures().speech(.male)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pv-relay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let received = directory.appendingPathComponent("received.wav")
        var options = VoiceOptions(input: .file(speech, loop: false), output: .file(received))
        options.iceTransportPolicy = policy
        options.trustedCAFile = trustedCAFile
        let call = try PolyVoice.call(
            config: Configuration(
                apiKey: "relay-api-key", environment: .local(port: port), webrtcToken: ShellHarness.token),
            options: options)
        try await call.start()
        #expect(await Wait.state(of: call) { $0 == .connected } == .connected)
        #expect(await Wait.until(timeout: .seconds(20)) { call.isInputFinished })
        try await Task.sleep(for: .seconds(1.5))  // the echo's tail
        let stats = await call.stats
        await call.end()
        return (
            MediaStatsSnapshot(stats: stats), try WAVFile.readPipelineSamples(from: speech),
            try WAVFile.readPipelineSamples(from: received)
        )
    }

    /// A relay-only echo call through `turnURL`: the relay over `relayProtocol` is selected and the speech comes
    /// back correlated.
    static func expectRelayedEcho(
        coturn: CoturnServer, turnURL: String, relayProtocol: String, trustedCAFile: String? = nil
    ) async throws {
        let (bridge, port) = try bridge(turn: BridgeTURNServers(urls: [turnURL], secret: coturn.secret))
        defer { bridge.stop() }
        let (stats, input, output) = try await echoCall(port: port, policy: .relay, trustedCAFile: trustedCAFile)
        #expect(stats.localCandidateType == "relay")
        #expect(stats.relayProtocol == relayProtocol)
        #expect(stats.packetsReceived > 100)
        let echo = Envelope.bestMatch(reference: input, degraded: output)
        print(
            String(
                format: "TURN/%@ echo: correlation %.2f, round trip %.0f ms", relayProtocol, echo.correlation,
                echo.delayMilliseconds))
        #expect(echo.correlation > 0.2)
    }

    @Test func relayOnlyCallEchoesSpeechThroughCoturn() async throws {
        let coturn = try CoturnServer()
        try await Self.expectRelayedEcho(coturn: coturn, turnURL: coturn.url, relayProtocol: "udp")
    }

    @Test func wrongTURNCredentialsStillConnectDirectly() async throws {
        let coturn = try CoturnServer()
        // The bridge signs with a secret coturn does not share: every allocation is refused (401).
        let (bridge, port) = try Self.bridge(turn: BridgeTURNServers(urls: [coturn.url], secret: "not-the-secret"))
        defer { bridge.stop() }
        let (stats, _, _) = try await Self.echoCall(port: port, policy: .all)
        #expect(stats.localCandidateType == "host")
        #expect(stats.packetsReceived > 100)
    }
}

/// The figures these tests check, read once from `MediaStats`.
struct MediaStatsSnapshot {
    var localCandidateType: String?
    var relayProtocol: String?
    var packetsReceived: UInt64

    init(stats: MediaStats) {
        localCandidateType = stats.selectedCandidatePair?.localCandidateType
        relayProtocol = stats.selectedCandidatePair?.relayProtocol
        packetsReceived = stats.inboundRtp.packetsReceived
    }
}
