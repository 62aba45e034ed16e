import Foundation
import PolyAudio
import PolyCore
import PolyNet
import PolySignaling
import PolyVoice
import Synchronization
import Testing

@testable import PolyVoiceBridge

/// A client MediaTransport calls the bridge's echo agent through the HTTP routes and hears itself.
@Suite(.serialized) struct EndToEndTests {
    final class Flags: Sendable {
        let connected = Atomic<Bool>(false)
    }

    /// Goertzel power of `samples` at `frequency` (48 kHz).
    static func power(_ samples: [Int16], frequency: Double) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequency / 48000)
        var (s1, s2) = (0.0, 0.0)
        for sample in samples {
            let s0 = Double(sample) + coefficient * s1 - s2
            (s2, s1) = (s1, s0)
        }
        return s1 * s1 + s2 * s2 - coefficient * s1 * s2
    }

    @Test func echoCallReturnsTheCallersAudio() async throws {
        let records = FileManager.default.temporaryDirectory.appendingPathComponent("bridge-e2e-\(UUID())")
        defer { try? FileManager.default.removeItem(at: records) }
        let bridge = Bridge(
            configuration: BridgeConfiguration(
                tokens: [TestHarness.webToken], agent: .echo(delayMilliseconds: 0), recordDirectory: records,
                media: .transport(), log: BridgeLog(level: .warn)))
        let port = try bridge.start()
        defer { bridge.stop() }
        let client = BridgeClient(
            configuration: .init(
                baseURL: URL(string: "http://127.0.0.1:\(port)/")!, webCallingToken: TestHarness.webToken,
                retry: .none))
        let call = try await client.provision(mode: "echo")

        // Ten seconds of a 440 Hz tone at -12 dBFS, 20 ms frames.
        let tone = (0..<(48000 * 10)).map { Int16(8000 * sin(2 * Double.pi * 440 * Double($0) / 48000)) }
        let source = SampleBufferSource(samples: tone)
        let sink = RecordingSink()
        let flags = Flags()
        let transport = try MediaTransport(
            configuration: MediaEndpointConfiguration(role: .client, certificate: try DTLSCertificate.shared()),
            source: source, sink: sink,
            onEvent: { event in if event == .connected { flags.connected.store(true, ordering: .relaxed) } })
        defer { Task { await transport.close() } }

        let answer = try await client.connect(offerSDP: try await transport.createOffer())
        try await transport.applyAnswer(answer)
        #expect(await eventually { flags.connected.load(ordering: .relaxed) })

        // Pull the agent's line once the bridge sees media connected (409 until then).
        var pullOffer: String?
        let deadline = ContinuousClock.now + .seconds(5)
        while pullOffer == nil, ContinuousClock.now < deadline {
            do { pullOffer = try await client.pull() } catch { try await Task.sleep(for: .milliseconds(50)) }
        }
        let offer = try #require(pullOffer)
        try await client.renegotiate(answerSDP: try await transport.applyOffer(offer))

        try await Task.sleep(for: .seconds(2))
        // The last 1.5 s in 100 ms windows: most must carry the 440 Hz tone at a good level (a shared,
        // loaded machine may glitch a few frames, which the jitter buffer conceals).
        let windows = stride(from: 0, to: 15, by: 1).map {
            Array(sink.samples.suffix(72000).dropFirst($0 * 4800).prefix(4800))
        }
        let toneWindows = windows.filter { window in
            LevelMeter.measure(window).rmsDBFS > -30
                && [200.0, 700, 1000, 2000].allSatisfy {
                    Self.power(window, frequency: 440) > 100 * Self.power(window, frequency: $0)
                }
        }
        #expect(
            toneWindows.count >= 10,
            "\(toneWindows.count) of 15 windows carry the echoed tone; levels \(windows.map { Int(max(-120, LevelMeter.measure($0).rmsDBFS)) }), bridge \(bridge.metricsText.split(separator: "\n").filter { $0.hasPrefix("polyvoice_bridge_rtp") || $0.contains("concealed_seconds_total ") })"
        )

        let stats = bridge.metricsText
        await client.hangUp()
        #expect(await eventually { bridge.activeCalls == 0 })
        #expect(stats.contains("polyvoice_bridge_active_calls 1"))
        // The caller was recorded: the tone, as the bridge decoded it.
        let recording = records.appendingPathComponent("\(call.callId).wav")
        #expect(await eventually { FileManager.default.fileExists(atPath: recording.path) })
        let recorded = try WAVFile.read(from: recording).int16Frame.samples
        #expect(recorded.count >= 48000)
        let middle = Array(recorded.suffix(48000 + 24000).prefix(24000))
        #expect(Self.power(middle, frequency: 440) > 100 * Self.power(middle, frequency: 1000))
    }
}
