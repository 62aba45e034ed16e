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
        let bridge = Bridge(
            configuration: BridgeConfiguration(
                tokens: [TestHarness.webToken], agent: .echo(delayMilliseconds: 0), media: .transport(),
                log: BridgeLog(level: .warn)))
        let port = try bridge.start()
        defer { bridge.stop() }
        let client = BridgeClient(
            configuration: .init(
                baseURL: URL(string: "http://127.0.0.1:\(port)/")!, webCallingToken: TestHarness.webToken,
                retry: .none))
        let call = try await client.provision(mode: "echo")

        // Four seconds of a 440 Hz tone at -12 dBFS, 20 ms frames.
        let tone = (0..<(48000 * 4)).map { Int16(8000 * sin(2 * Double.pi * 440 * Double($0) / 48000)) }
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
        let received = sink.samples
        let lastSecond = Array(received.suffix(48000))
        let level = LevelMeter.measure(lastSecond)
        #expect(level.rmsDBFS > -20, "echo level \(level.rmsDBFS) dBFS")
        // The echo is the 440 Hz tone: its power there exceeds that at other frequencies by far
        // (a few concealed frames under load do not change that).
        let at440 = Self.power(lastSecond, frequency: 440)
        for other in [200.0, 700, 1000, 2000] {
            #expect(at440 > 100 * Self.power(lastSecond, frequency: other), "440 Hz vs \(other) Hz")
        }

        let stats = bridge.metricsText
        await client.hangUp()
        #expect(await eventually { bridge.activeCalls == 0 })
        #expect(stats.contains("polyvoice_bridge_active_calls 1"))
        _ = call
    }
}
