// A client whose input is Opus encoded ahead of time (EncodedFrameSource, as the load generator replays it)
// against an echo bridge that encodes cheaply (complexity 1, wideband): the tone comes back at its pitch.
import Foundation
import PolyAudio
import PolyCore
import PolyNet
import Synchronization
import Testing

@testable import PolySession

/// Replays payloads encoded once, counting how many were taken.
final class PayloadLoop: EncodedFrameSource {
    let name = "payloads"
    let endOfStream = false
    private let payloads: [[UInt8]]
    let taken = Atomic<Int>(0)

    init(payloads: [[UInt8]]) { self.payloads = payloads }

    func withNextPayload(_ body: (UnsafeRawBufferPointer) -> Void) {
        let index = taken.wrappingAdd(1, ordering: .relaxed).oldValue
        payloads[index % payloads.count].withUnsafeBytes(body)
    }

    /// The transport must not read PCM from an encoded source: a tone at another pitch would show it did.
    func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Int {
        let wrong = Signals.tone(hertz: 1000, seconds: 0.02)
        for index in 0..<frame.count { frame[index] = wrong[index % wrong.count] }
        return frame.count
    }

    func close() {}
}

extension MediaSuites {
    @Suite("MediaTransport with an encoded-once source", .serialized)
    struct EncodedSourceTests {
        @Test("payloads encoded once come back from a cheap-encoding echo bridge at the tone's pitch")
        func encodedToneThroughCheapEchoBridge() async throws {
            let loop = try EventLoop(name: "media-transport-encoded")
            defer { loop.shutdown() }
            let encoder = try OpusEncoder(OpusEncoderSettings(sampleRate: 48_000, channels: 1))
            let tone = Signals.tone(hertz: 440, seconds: 1)
            let payloads = try stride(from: 0, to: tone.count, by: 960).map {
                try encoder.encode(Array(tone[$0..<($0 + 960)]))
            }
            let source = PayloadLoop(payloads: payloads)
            let recording = RecordingSink()
            let clientLog = EventLog()
            let echo = EchoAudio()
            let client = try MediaTransport(
                configuration: MediaEndpointConfiguration(role: .client, certificate: try DTLSCertificate.generate()),
                loop: loop, source: source, sink: recording, onEvent: { clientLog.record($0) })
            var bridgeConfiguration = MediaEndpointConfiguration(
                role: .bridge, certificate: try DTLSCertificate.generate())
            bridgeConfiguration.codec.complexity = 1
            bridgeConfiguration.encoderMaxBandwidth = .wideband
            let bridge = try MediaTransport(configuration: bridgeConfiguration, loop: loop, source: echo, sink: echo)
            try await client.applyAnswer(try await bridge.applyOffer(try await client.createOffer()))
            #expect(try await clientLog.wait(for: .connected, timeout: .seconds(10)) != nil)
            try await bridge.applyPullAnswer(try await client.applyOffer(try await bridge.createPullOffer()))
            try await Task.sleep(for: .seconds(4))
            let stats = await client.stats()
            #expect(stats.outboundRtp.packetsSent > 50)
            #expect(source.taken.load(ordering: .relaxed) >= Int(stats.outboundRtp.packetsSent))
            let echoed = Signals.echoedTone(in: recording.samples)
            #expect(echoed.loudFrames >= 25)
            #expect(abs(echoed.medianHertz - 440) < 20)
            await client.close()
            await bridge.close()
        }
    }
}
