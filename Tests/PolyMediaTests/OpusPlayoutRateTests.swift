// The jitter buffer playing Opus out below the RTP clock's 48 kHz (a bridge agent's 16 kHz audio).
import Foundation
import PolyAudio
import PolyCore
import PolyMedia
import Testing

@Suite struct OpusPlayoutRateTests {
    /// A 440 Hz tone encoded at 48 kHz, 20 ms packets with RTP timestamps crossing the 32-bit wrap, plays out
    /// at 16 kHz: every packet is played (no concealment or discard) and the tone keeps its pitch.
    @Test func fortyEightKilohertzTimestampsPlayOutAtSixteen() throws {
        let encoder = try OpusEncoder(OpusEncoderSettings(sampleRate: 48_000, channels: 1))
        var configuration = JitterBufferConfiguration()
        configuration.sampleRate = 16_000
        configuration.rtpClockRate = 48_000
        configuration.frameSamples = 160
        var buffer = JitterBuffer(
            decoder: try OpusDecoder(sampleRate: 16_000, channels: 1), configuration: configuration)
        let start = UInt32.max - 960 * 50 + 1  // wraps after 50 packets
        var output: [Int16] = []
        var frame = [Int16](repeating: 0, count: 160)
        for k in 0..<150 {
            let pcm = (0..<960).map { Int16(8000 * sin(2 * Double.pi * 440 * Double(k * 960 + $0) / 48_000)) }
            let payload = try encoder.encode(pcm)
            let arrival = Instant.milliseconds(Int64(k) * 20 + 30)
            payload.withUnsafeBufferPointer {
                buffer.insert(
                    payload: $0, timestamp: start &+ UInt32(k * 960), ssrc: 9, marker: k == 0, arrival: arrival,
                    at: arrival)
            }
            for half in 0..<2 {
                frame.withUnsafeMutableBufferPointer {
                    _ = buffer.pull(at: arrival + .milliseconds(Int64(half) * 10), into: $0)
                }
                output += frame
            }
        }
        #expect(buffer.statistics.concealedSamples == 0)
        #expect(buffer.statistics.packetsDiscarded == 0)
        #expect(buffer.statistics.jitterBufferEmittedCount >= 145 * 320)
        // The last second: 16,000 samples of a 440 Hz tone.
        let last = output.suffix(16_000)
        var crossings = 0
        for (previous, sample) in zip(last, last.dropFirst()) where previous < 0 && sample >= 0 { crossings += 1 }
        #expect(abs(crossings - 440) <= 3)
    }
}
