// The Opus wrapper: round trips, concealment, FEC, and rejection of bad input.
import Foundation
import PolyAudio
import Testing

/// Encodes `pcm` in whole frames and decodes every packet: the codec's output (delayed by lookahead).
func opusRoundTrip(_ pcm: [Int16], settings: OpusEncoderSettings) throws -> (output: [Int16], lookahead: Int) {
    let encoder = try OpusEncoder(settings)
    let decoder = try OpusDecoder(sampleRate: settings.sampleRate, channels: settings.channels)
    let frame = encoder.frameSamples * settings.channels
    var output: [Int16] = []
    for start in stride(from: 0, to: pcm.count - frame + 1, by: frame) {
        let packet = try encoder.encode(Array(pcm[start..<(start + frame)]))
        output += try decoder.decode(packet)
    }
    return (output, encoder.lookaheadSamples)
}

@Suite struct OpusCodecTests {
    @Test func sineRoundTripKeepsTheWaveform() throws {
        let sine = TestSignals.sine(frequency: 440, sampleRate: 48000, seconds: 1)
        let (output, lookahead) = try opusRoundTrip(sine, settings: OpusEncoderSettings())
        #expect(lookahead > 0 && lookahead < 960)
        #expect(output.count == 48000)
        // Skip the first 100 ms (encoder start-up); remove the codec delay (lookahead, refined by ±16).
        let lag = TestSignals.bestLag(sine, output, around: lookahead, within: 16, from: 4800, count: 40000)
        let reference = sine[4800..<44800]
        let decoded = output[(4800 + lag)..<(44800 + lag)]
        let snr = TestSignals.snr(reference, decoded)
        let correlation = TestSignals.correlation(reference, decoded)
        #expect(snr > 15, "SNR \(snr) dB")
        #expect(correlation > 0.98, "correlation \(correlation)")
        // Misaligned by half a period the same comparison must fail: the alignment is real.
        #expect(TestSignals.correlation(reference, output[(4800 + lag + 55)..<(44800 + lag + 55)]) < 0)
    }

    @Test(arguments: [10, 20, 40, 60])
    func everyFrameDurationEncodes(milliseconds: Int) throws {
        let settings = OpusEncoderSettings(frameDuration: .milliseconds(milliseconds))
        let encoder = try OpusEncoder(settings)
        #expect(encoder.frameSamples == 48 * milliseconds)
        let packet = try encoder.encode(
            TestSignals.sine(frequency: 300, sampleRate: 48000, seconds: Double(milliseconds) / 1000))
        #expect(OpusDecoder.packetSamples(packet) == 48 * milliseconds)
        #expect(try OpusDecoder().decode(packet).count == 48 * milliseconds)
    }

    @Test func stereoRoundTripKeepsBothChannels() throws {
        let left = TestSignals.sine(frequency: 440, sampleRate: 48000, seconds: 0.5)
        let right = TestSignals.sine(frequency: 660, sampleRate: 48000, seconds: 0.5, amplitude: 0.25)
        let interleaved = zip(left, right).flatMap { [$0.0, $0.1] }
        let settings = OpusEncoderSettings(channels: 2, bitrate: 64000)
        let (output, lookahead) = try opusRoundTrip(interleaved, settings: settings)
        #expect(output.count == interleaved.count)
        let decodedLeft = stride(from: 0, to: output.count, by: 2).map { output[$0] }
        let decodedRight = stride(from: 1, to: output.count, by: 2).map { output[$0] }
        let range = 4800..<(24000 - lookahead)
        #expect(TestSignals.correlation(left[range], decodedLeft[(4800 + lookahead)...].prefix(range.count)) > 0.95)
        #expect(TestSignals.correlation(right[range], decodedRight[(4800 + lookahead)...].prefix(range.count)) > 0.95)
    }

    @Test(arguments: [120, 480, 960, 1920, 2880])
    func concealmentReturnsTheExactFrameLength(samples: Int) throws {
        let encoder = try OpusEncoder(OpusEncoderSettings())
        let decoder = try OpusDecoder()
        _ = try decoder.decode(try encoder.encode(TestSignals.sine(frequency: 440, sampleRate: 48000, seconds: 0.02)))
        #expect(try decoder.conceal(samples: samples).count == samples)
        var buffer = [Int16](repeating: 0, count: samples)
        let written = try buffer.withUnsafeMutableBufferPointer { try decoder.conceal(into: $0) }
        #expect(written == samples)
    }

    @Test func invalidSettingsThrow() {
        let invalid: [OpusEncoderSettings] = [
            OpusEncoderSettings(sampleRate: 44100),
            OpusEncoderSettings(channels: 3),
            OpusEncoderSettings(frameDuration: .milliseconds(25)),
            OpusEncoderSettings(frameDuration: .microseconds(2500)),
            OpusEncoderSettings(bitrate: 100),
            OpusEncoderSettings(complexity: 11),
            OpusEncoderSettings(packetLossPercent: -1),
        ]
        for settings in invalid {
            #expect(throws: OpusError.self) { try OpusEncoder(settings) }
        }
        #expect(throws: OpusError.self) { try OpusDecoder(sampleRate: 44100) }
        #expect(throws: OpusError.self) { try OpusDecoder(channels: 0) }
    }

    @Test func invalidCallsThrowWithTheLibopusMessage() throws {
        let encoder = try OpusEncoder(OpusEncoderSettings())
        let error = #expect(throws: OpusError.self) { try encoder.encode([Int16](repeating: 0, count: 100)) }
        #expect(error?.message == "invalid argument")
        #expect(throws: OpusError.self) { try encoder.setBitrate(1) }
        #expect(throws: OpusError.self) { try encoder.setPacketLossPercent(101) }
        #expect(throws: OpusError.self) { try OpusDecoder().conceal(samples: 100) }  // not a multiple of 2.5 ms
        #expect(throws: OpusError.self) { try OpusDecoder().decode([]) }
    }

    @Test func garbagePacketsThrowNeverCrash() throws {
        let decoder = try OpusDecoder()
        var random = SystemRandomNumberGenerator()
        var rejected = 0
        // Code-3 packets whose frame count byte claims more frames than the bytes hold.
        let truncated: [[UInt8]] = [[0x03], [0x03, 0xFF], [0x0B, 0x85, 0xFF, 0xFF], [0xFF, 0x00]]
        for packet in truncated {
            #expect(throws: OpusError.self) { try decoder.decode(packet) }
        }
        for _ in 0..<2000 {
            let packet = (0..<Int.random(in: 1...300, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            do { _ = try decoder.decode(packet) } catch { rejected += 1 }
        }
        #expect(rejected > 0)
        #expect(OpusDecoder.packetSamples([]) == nil)
        #expect(OpusDecoder.packetSamples([0x03]) == nil)  // code 3 without its frame-count byte
        // The decoder still works after garbage.
        decoder.reset()
        let packet = try OpusEncoder(OpusEncoderSettings()).encode([Int16](repeating: 0, count: 960))
        #expect(try decoder.decode(packet).count == 960)
    }

    @Test func settersTakeEffect() throws {
        let encoder = try OpusEncoder(OpusEncoderSettings(bitrate: 64000, vbr: false))
        let sine = TestSignals.sine(frequency: 440, sampleRate: 48000, seconds: 0.2)
        let frames = stride(from: 0, to: sine.count, by: 960).map { Array(sine[$0..<($0 + 960)]) }
        let high = try frames.map { try encoder.encode($0).count }.reduce(0, +)
        try encoder.setBitrate(12000)
        let low = try frames.map { try encoder.encode($0).count }.reduce(0, +)
        #expect(high == 160 * frames.count)  // CBR: 64 kbit/s * 20 ms = 160 bytes
        #expect(low < high / 3)
        encoder.setDTX(true)
        encoder.setInbandFEC(true)
        try encoder.setPacketLossPercent(10)
        #expect(encoder.settings.dtx && encoder.settings.inbandFEC && encoder.settings.packetLossPercent == 10)
    }

    @Test func dtxSendsTinyPacketsInSilence() throws {
        let encoder = try OpusEncoder(OpusEncoderSettings(dtx: true))
        let silence = [Int16](repeating: 0, count: 960)
        var sizes: [Int] = []
        for _ in 0..<50 { sizes.append(try encoder.encode(silence).count) }
        #expect(sizes.suffix(10).allSatisfy { $0 <= 2 }, "\(sizes)")
        #expect(encoder.isInDTX)
    }
}
