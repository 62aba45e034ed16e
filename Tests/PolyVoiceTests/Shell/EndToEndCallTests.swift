// Whole calls on 127.0.0.1: PolyCall with the real media against the in-process reference bridge.
import Foundation
import PolyAudio
import PolyVoiceBridge
import PolyVoiceTesting
import Testing

@testable import PolyVoice

@Suite("End-to-end calls against the reference bridge", .serialized)
struct EndToEndCallTests {
    static func scratch(_ name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "polyvoice-shell-\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static func bridge(agent: AgentSpec, record: URL? = nil) throws -> (Bridge, Int) {
        let bridge = Bridge(
            configuration: BridgeConfiguration(
                tokens: [ShellHarness.token], agent: agent, recordDirectory: record, media: .transport(),
                log: BridgeLog(level: .error)))
        return (bridge, try bridge.start())
    }

    static func config(port: Int) -> Configuration {
        Configuration(apiKey: "e2e-api-key-1", environment: .local(port: port), webrtcToken: ShellHarness.token)
    }

    @Test func fileAudioThroughTheEchoAgentComesBackCorrelated() async throws {
        let speech = try SpeechFixtures().speech(.male)
        let directory = try Self.scratch("echo")
        defer { try? FileManager.default.removeItem(at: directory) }
        let received = directory.appendingPathComponent("received.wav")
        let (bridge, port) = try Self.bridge(agent: .echo(delayMilliseconds: 0))
        defer { bridge.stop() }

        let call = try PolyVoice.call(
            config: Self.config(port: port),
            options: VoiceOptions(input: .file(speech, loop: false), output: .file(received)))
        let clock = ContinuousClock()
        let began = clock.now
        try await call.start()
        #expect(await Wait.state(of: call) { $0 == .connected } == .connected)
        print("e2e: connected after \(clock.now - began)")
        let setup = try #require(await call.setupTime)
        #expect(await Wait.until(timeout: .seconds(20)) { call.isInputFinished })
        print("e2e: input finished after \(clock.now - began)")
        try await Task.sleep(for: .seconds(1.5))  // the echo's tail
        let stats = await call.stats
        await call.end()
        print("e2e: ended after \(clock.now - began)")
        #expect(call.state == .ended)
        #expect(bridge.activeCalls == 0)

        #expect(stats.outboundRtp.packetsSent > 200)
        #expect(stats.inboundRtp.packetsReceived > 100)
        let input = try WAVFile.readPipelineSamples(from: speech)
        let output = try WAVFile.readPipelineSamples(from: received)
        // Speech envelopes (20 ms RMS) survive concealment and time-stretching that defeat sample-exact
        // correlation on a loaded machine.
        let echo = Envelope.bestMatch(reference: input, degraded: output)
        print(
            String(
                format: "e2e echo: setup %.0f ms, echo round trip %.0f ms, envelope correlation %.2f, RTT %@ ms",
                setup.inSeconds * 1000, echo.delayMilliseconds, echo.correlation,
                stats.remoteInboundRtp.roundTripTime.map { String(format: "%.1f", $0 * 1000) } ?? "-"))
        // What came back is speech: about as many loud frames as were sent (concealment is quieter).
        let sentSpeech = Envelope.of(input).filter { $0 > 330 }.count  // above -40 dBFS
        let backSpeech = Envelope.of(output).filter { $0 > 330 }.count
        print("e2e speech frames: sent \(sentSpeech), back \(backSpeech)")
        #expect(Double(backSpeech) > 0.5 * Double(sentSpeech))
        #expect(echo.correlation > 0.2)
        #expect(echo.delayMilliseconds > 0)
    }

    @Test func callerTalkingOverTheScriptAgentIsABargeInThatPausesPlayout() async throws {
        let fixtures = try SpeechFixtures()
        let prompt = try fixtures.speech(.female)
        let directory = try Self.scratch("script")
        defer { try? FileManager.default.removeItem(at: directory) }
        // The caller: 2 s of speech, then 1.5 s of silence (a clear end of turn for the agent's VAD, whatever
        // the pauses inside espeak's sentences), looped — so the caller talks again over the agent's prompt.
        let speech = try WAVFile.readPipelineSamples(from: try fixtures.speech(.male))
        let turn = Array(speech.prefix(96_000)) + [Int16](repeating: 0, count: 72_000)
        let caller = directory.appendingPathComponent("caller-turns.wav")
        try WAVFile(sampleRate: 48_000, layout: .mono, samples: .int16(turn)).write(to: caller)
        try FileManager.default.copyItem(at: prompt, to: directory.appendingPathComponent("1.wav"))
        try FileManager.default.copyItem(at: prompt, to: directory.appendingPathComponent("2.wav"))
        let (bridge, port) = try Self.bridge(agent: .script(directory: directory.path))
        defer { bridge.stop() }

        let call = try PolyVoice.call(
            config: Self.config(port: port), options: VoiceOptions(input: .file(caller, loop: true), output: .null))
        let paused = Task { await Wait.first(call.audioStates, timeout: .seconds(25)) { $0.isAgentAudioPaused } }
        try await call.start()
        // The caller pauses between sentences (a turn ends, the prompt starts) and goes on talking over it.
        let state = await paused.value
        #expect(state?.isAgentAudioPaused == true)
        await call.end()
        #expect(call.state == .ended)
    }
}

extension Duration {
    fileprivate var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// Speech energy envelopes: 20 ms RMS frames, compared at the best lag.
enum Envelope {
    static let frame = 960

    static func of(_ samples: [Int16]) -> [Double] {
        stride(from: 0, to: samples.count - frame + 1, by: frame).map { start in
            var sum = 0.0
            for sample in samples[start..<(start + frame)] { sum += Double(sample) * Double(sample) }
            return (sum / Double(frame)).squareRoot()
        }
    }

    /// The Pearson correlation of the envelopes at the lag (0...10 s, degraded later) where it is highest. The
    /// recording starts with the call and a file's speech once it is connected, which takes seconds when the whole
    /// suite runs in parallel on two cores (a relay-only call's echo came back 4.1 s into its recording).
    static func bestMatch(reference: [Int16], degraded: [Int16]) -> (correlation: Double, delayMilliseconds: Double) {
        let a = of(reference)
        let b = of(degraded)
        var best = (correlation: -1.0, delayMilliseconds: 0.0)
        for lag in 0...500 where lag < b.count {
            let count = min(a.count, b.count - lag)
            guard count > 50 else { break }
            let r = pearson(Array(a[0..<count]), Array(b[lag..<(lag + count)]))
            if r > best.correlation { best = (r, Double(lag) * 20) }
        }
        return best
    }

    static func pearson(_ x: [Double], _ y: [Double]) -> Double {
        let mx = x.reduce(0, +) / Double(x.count)
        let my = y.reduce(0, +) / Double(y.count)
        var sxy = 0.0
        var sxx = 0.0
        var syy = 0.0
        for i in x.indices {
            sxy += (x[i] - mx) * (y[i] - my)
            sxx += (x[i] - mx) * (x[i] - mx)
            syy += (y[i] - my) * (y[i] - my)
        }
        return sxx > 0 && syy > 0 ? sxy / (sxx * syy).squareRoot() : 0
    }
}
