// Opus on real speech (espeak-ng): round-trip fidelity, and FEC beating concealment on lost frames.
import Foundation
import PolyAudio
import Testing

/// Speech from espeak-ng at 48 kHz mono, made in a temporary directory (espeak-ng writes 22.05 kHz).
func espeakSpeech(_ text: String) throws -> [Int16] {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("speech.wav")
    _ = try run("/usr/bin/espeak-ng", ["-w", url.path, text])
    return try WAVFile.readPipelineSamples(from: url)
}

@Suite struct SpeechCodecTests {
    static let sentence = "The quick brown fox jumps over the lazy dog. Voice calls from Linux to agents."

    @Test func speechRoundTripCorrelates() throws {
        let speech = try espeakSpeech(Self.sentence)
        #expect(speech.count > 48000 * 2)
        let (output, lookahead) = try opusRoundTrip(speech, settings: OpusEncoderSettings())
        let count = output.count - 4800 - lookahead - 32
        let lag = TestSignals.bestLag(speech, output, around: lookahead, within: 8, from: 4800, count: count)
        let reference = speech[4800..<(4800 + count)]
        let decoded = output[(4800 + lag)..<(4800 + lag + count)]
        let snr = TestSignals.snr(reference, decoded)
        let correlation = TestSignals.correlation(reference, decoded)
        print("speech round trip: lag \(lag), SNR \(snr) dB, correlation \(correlation)")
        #expect(correlation > 0.9, "correlation \(correlation)")
        #expect(snr > 8, "SNR \(snr) dB")
    }

    /// Frames 20 ms apart in loud speech are lost; FEC from the next packet must beat PLC alone.
    @Test func fecRecoversLostFramesBetterThanConcealment() throws {
        let speech = try espeakSpeech(Self.sentence)
        let settings = OpusEncoderSettings(inbandFEC: true, packetLossPercent: 20)
        let encoder = try OpusEncoder(settings)
        let frame = encoder.frameSamples
        let packets = try stride(from: 0, to: speech.count - frame + 1, by: frame).map {
            try encoder.encode(Array(speech[$0..<($0 + frame)]))
        }
        // Lose every 7th packet where the speech is loud (not the first or last).
        let lost = Set(
            packets.indices.filter { index in
                index % 7 == 3 && index + 1 < packets.count
                    && LevelMeter.measure(Array(speech[(index * frame)..<((index + 1) * frame)])).rmsDBFS > -30
            })
        #expect(lost.count >= 8)

        func decodeAll(useFEC: Bool) throws -> [Int16] {
            let decoder = try OpusDecoder()
            var output: [Int16] = []
            for (index, packet) in packets.enumerated() {
                if lost.contains(index) {
                    output +=
                        try useFEC
                        ? decoder.decodeFEC(from: packets[index + 1], samples: frame)
                        : decoder.conceal(samples: frame)
                } else {
                    output += try decoder.decode(packet)
                }
            }
            return output
        }
        let withFEC = try decodeAll(useFEC: true)
        let withPLC = try decodeAll(useFEC: false)
        #expect(withFEC.count == packets.count * frame)
        #expect(withPLC.count == packets.count * frame)
        let delay = encoder.lookaheadSamples
        var fecError = 0.0
        var plcError = 0.0
        for index in lost {
            let reference = speech[(index * frame)..<((index + 1) * frame)]
            let range = (index * frame + delay)..<((index + 1) * frame + delay)
            fecError += TestSignals.errorEnergy(reference, withFEC[range])
            plcError += TestSignals.errorEnergy(reference, withPLC[range])
        }
        print("lost \(lost.count) frames: FEC error \(fecError), PLC error \(plcError)")
        #expect(fecError < plcError * 0.8)
    }
}
