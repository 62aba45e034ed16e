// `OpusDecoder.decodeAhead`: the next packet's audio, seen without changing the decoder.
import PolyAudio
import Testing

@Suite struct OpusDecodeAheadTests {
    /// CELT fullband (as browsers send at 96 kbit/s) and SILK wideband.
    static let modes = [
        OpusEncoderSettings(bitrate: 96000), OpusEncoderSettings(bitrate: 32000, maxBandwidth: .wideband),
    ]

    static func ahead(_ decoder: OpusDecoder, _ packet: [UInt8]) throws -> [Int16] {
        var pcm = [Int16](repeating: 0, count: 960)
        let count = try packet.withUnsafeBufferPointer { input in
            try pcm.withUnsafeMutableBufferPointer { try decoder.decodeAhead(input, into: $0) }
        }
        return Array(pcm[0..<count])
    }

    @Test(arguments: modes)
    func theLookIsWhatDecodingGivesAndLeavesTheStateAlone(settings: OpusEncoderSettings) throws {
        let tone = AudioProcessorSignals.mix(
            TestSignals.sine(frequency: 220, sampleRate: 48000, seconds: 1, amplitude: 0.3),
            TestSignals.sine(frequency: 1330, sampleRate: 48000, seconds: 1, amplitude: 0.1))
        let input = AudioProcessorSignals.mix(tone, AudioProcessorSignals.noise(count: tone.count, rms: 300, seed: 9))
        let encoder = try OpusEncoder(settings)
        let packets = try (0..<50).map { try encoder.encode(Array(input[($0 * 960)..<(($0 + 1) * 960)])) }
        let looking = try OpusDecoder()
        let plain = try OpusDecoder()
        var looks = 0
        for (k, packet) in packets.enumerated() {
            if k % 7 == 3 {  // lost: both conceal, and the look after a concealment is checked too
                #expect(try looking.conceal(samples: 960) == plain.conceal(samples: 960))
                continue
            }
            if k % 3 == 0 || k % 7 == 4 {
                let ahead = try Self.ahead(looking, packet)
                #expect(ahead == (try looking.decode(packet)))
                _ = try plain.decode(packet)
                looks += 1
                continue
            }
            // Looking ahead before changed nothing: both decoders give the same audio from then on.
            #expect(try looking.decode(packet) == plain.decode(packet))
        }
        #expect(looks > 15)
        #expect(throws: OpusError.self) { try Self.ahead(looking, []) }
    }
}
