// Two MediaTransports over real UDP sockets on 127.0.0.1: a client and an echoing bridge exchange 3 s of
// speech; the echo correlates with the input. Prints the round-trip delay and the offer → connected time.
import Foundation
import PolyAudio
import PolyCore
import PolyNet
import PolyVoiceTesting
import Synchronization
import Testing

@testable import PolySession

/// Plays silence until `begin()`, then its samples once; remembers the sink's length at that moment.
final class GatedSource: AudioFrameSource {
    let name = "gated samples"
    var endOfStream: Bool { false }
    func close() {}
    private let samples: [Int16]
    private let sink: RecordingSink
    private let state = Mutex<(armed: Bool, position: Int, startIndex: Int?)>((false, 0, nil))

    init(samples: [Int16], recordingInto sink: RecordingSink) {
        self.samples = samples
        self.sink = sink
    }

    func begin() { state.withLock { $0.armed = true } }

    /// Index in the client's recording of the tick that sent the first sample.
    var startIndex: Int? { state.withLock { $0.startIndex } }

    func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Int {
        let sinkCount = sink.count
        return state.withLock { state in
            guard state.armed else {
                frame.update(repeating: 0)
                return 0
            }
            if state.startIndex == nil { state.startIndex = sinkCount }
            for index in 0..<frame.count {
                let position = state.position + index
                frame[index] = position < samples.count ? samples[position] : 0
            }
            state.position += frame.count
            return frame.count
        }
    }
}

/// Events with their arrival times, readable from the test task.
final class EventLog: Sendable {
    private let events = Mutex<[(MediaEvent, Instant)]>([])

    func record(_ event: MediaEvent) { events.withLock { $0.append((event, Instant.now())) } }

    func dump(since start: Instant) -> String {
        events.withLock {
            $0.map { "\($0.0)@\(String(format: "%.1f", ($0.1 - start).inMilliseconds))" }.joined(separator: " ")
        }
    }

    func first(_ event: MediaEvent) -> Instant? { events.withLock { $0.first { $0.0 == event }?.1 } }

    func wait(for event: MediaEvent, timeout: Duration = .seconds(3)) async throws -> Instant? {
        let deadline = Instant.now() + timeout
        while Instant.now() < deadline {
            if let at = first(event) { return at }
            try await Task.sleep(for: .milliseconds(5))
        }
        return first(event)
    }
}

extension MediaSuites {
    @Suite("MediaTransport over loopback UDP", .serialized)
    struct MediaTransportTests {
        @Test("client and echo bridge: 3 s of speech round-trips; set-up and round-trip delay measured")
        func echoOverLoopback() async throws {
            let speech = Array(try Signals.speech().prefix(3 * 48_000))
            let loop = try EventLoop(name: "media-transport-test")
            defer { loop.shutdown() }
            let recording = RecordingSink()
            let source = GatedSource(samples: speech, recordingInto: recording)
            let echo = EchoAudio()
            let clientLog = EventLog()
            let bridgeLog = EventLog()
            let client = try MediaTransport(
                configuration: MediaEndpointConfiguration(role: .client, certificate: try DTLSCertificate.generate()),
                loop: loop, source: source, sink: recording, onEvent: { clientLog.record($0) })
            let bridge = try MediaTransport(
                configuration: MediaEndpointConfiguration(role: .bridge, certificate: try DTLSCertificate.generate()),
                loop: loop, source: echo, sink: echo, onEvent: { bridgeLog.record($0) })

            let offerStart = Instant.now()
            let offer = try await client.createOffer()
            let answer = try await bridge.applyOffer(offer)
            try await client.applyAnswer(answer)
            let connected = try #require(try await clientLog.wait(for: .connected))
            #expect(try await bridgeLog.wait(for: .connected) != nil)
            let setup = connected - offerStart
            print("MediaTransport loopback: offer → connected \(String(format: "%.1f", setup.inMilliseconds)) ms")

            let pullAnswer = try await client.applyOffer(try await bridge.createPullOffer())
            try await bridge.applyPullAnswer(pullAnswer)
            try await Task.sleep(for: .milliseconds(300))
            source.begin()
            try await Task.sleep(for: .milliseconds(5_600))

            let start = try #require(source.startIndex)
            let echoed = Array(recording.samples.dropFirst(start))
            // The speech envelope (10 ms RMS) survives the jitter buffer's time-stretching, which a loaded machine
            // provokes and which shifts the waveform by a few ms at a time; the waveform alignment gives the delay.
            let envelope = Self.envelopeMatch(reference: speech, echoed: echoed)
            let waveform = AudioComparison(
                reference: Signals.floats(speech), degraded: Signals.floats(echoed), sampleRate: 48_000,
                maxDelay: .seconds(2))
            print(
                "MediaTransport loopback: round trip \(String(format: "%.1f", waveform.delayMilliseconds)) ms "
                    + "(waveform correlation \(String(format: "%.3f", waveform.correlation))), envelope "
                    + "\(envelope.delayMilliseconds) ms (correlation \(String(format: "%.3f", envelope.correlation)))")
            // Figures, not pass/fail: on a loaded two-core machine the jitter buffers stretch time and grow.
            // What must hold: the speech came back (energy well above the silence before it).
            #expect(Signals.rms(echoed[...]) > 500)
            let stats = await client.stats()
            print("MediaTransport loopback: events \(clientLog.dump(since: offerStart))")
            print(
                "MediaTransport loopback: jitter buffer mean delay "
                    + String(
                        format: "%.1f ms",
                        stats.inboundRtp.jitterBufferDelay
                            / Double(max(1, stats.inboundRtp.jitterBufferEmittedCount)) * 1000))
            #expect(stats.inboundRtp.packetsReceived > 100)
            #expect(stats.outboundRtp.packetsSent > 100)
            #expect(stats.srtp.authenticationFailures == 0)
            // What the jitter buffer's target is made of comes with the stats once audio played: at least one pull
            // of measured spread, and a playout delay it is compared with.
            let parts = try #require(stats.inboundRtp.targetDelayParts)
            #expect(parts.spreadMs >= 10)
            #expect(parts.playoutDelayMs > 0)

            await client.close()
            #expect(try await bridgeLog.wait(for: .remoteBye) != nil)
            #expect(clientLog.first(.closed) != nil)
            await bridge.close()
        }

        @Test("a 440 Hz tone sent by the client comes back from the echo bridge at 440 Hz")
        func toneThroughEchoBridge() async throws {
            let loop = try EventLoop(name: "media-transport-tone")
            defer { loop.shutdown() }
            let recording = RecordingSink()
            let clientLog = EventLog()
            let echo = EchoAudio()
            let client = try MediaTransport(
                configuration: MediaEndpointConfiguration(role: .client, certificate: try DTLSCertificate.generate()),
                loop: loop, source: SampleBufferSource(samples: Signals.tone(hertz: 440, seconds: 60)), sink: recording,
                onEvent: { clientLog.record($0) })
            let bridge = try MediaTransport(
                configuration: MediaEndpointConfiguration(role: .bridge, certificate: try DTLSCertificate.generate()),
                loop: loop, source: echo, sink: echo)
            try await client.applyAnswer(try await bridge.applyOffer(try await client.createOffer()))
            #expect(try await clientLog.wait(for: .connected, timeout: .seconds(10)) != nil)
            try await bridge.applyPullAnswer(try await client.applyOffer(try await bridge.createPullOffer()))
            // Long enough for the echo to be back even when a loaded machine stretches the round trip to ~1 s.
            try await Task.sleep(for: .seconds(4))
            let echoed = Signals.echoedTone(in: recording.samples)
            #expect(echoed.loudFrames >= 25)
            #expect(abs(echoed.medianHertz - 440) < 20)
            await client.close()
            await bridge.close()
        }

        /// Best Pearson correlation of the 10 ms RMS envelopes over lags of 0...2 s (at least 1 s of overlap).
        static func envelopeMatch(reference: [Int16], echoed: [Int16]) -> (correlation: Double, delayMilliseconds: Int)
        {
            func envelope(_ samples: [Int16]) -> [Double] {
                stride(from: 0, to: max(0, samples.count - 479), by: 480).map { Signals.rms(samples[$0..<($0 + 480)]) }
            }
            let ref = envelope(reference)
            let echo = envelope(echoed)
            var best = (correlation: -1.0, delayMilliseconds: 0)
            for lag in 0...200 {
                let count = min(ref.count, echo.count - lag)
                guard count >= 100 else { break }
                let a = ref[0..<count]
                let b = echo[lag..<(lag + count)]
                let meanA = a.reduce(0, +) / Double(count)
                let meanB = b.reduce(0, +) / Double(count)
                var ab = 0.0
                var aa = 0.0
                var bb = 0.0
                for (x, y) in zip(a, b) {
                    ab += (x - meanA) * (y - meanB)
                    aa += (x - meanA) * (x - meanA)
                    bb += (y - meanB) * (y - meanB)
                }
                let correlation = ab / max(1e-9, (aa * bb).squareRoot())
                if correlation > best.correlation { best = (correlation, lag * 10) }
            }
            return best
        }
    }
}
