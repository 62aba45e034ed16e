// OpusDecoder converts libopus's float output to Int16 itself (skipping the soft clip when it is a no-op); its
// output must equal libopus's own Int16 `opus_decode` sample for sample, through loud clipped passages (soft clip
// active, its memory carried across frames), packet loss concealment, FEC recovery and a reset.
import COpus
import Foundation
import PolyAudio
import PolyCore
import Testing

/// libopus's Int16 decode called directly: the reference. `probe` is a third decoder run through the same calls
/// with the float API, to show that the soft clip really changed some frames.
private final class ReferenceDecoders {
    let int16: OpaquePointer
    let probe: OpaquePointer
    let channels: Int

    init(sampleRate: Int, channels: Int) throws {
        var error: Int32 = 0
        int16 = try #require(opus_decoder_create(Int32(sampleRate), Int32(channels), &error))
        probe = try #require(opus_decoder_create(Int32(sampleRate), Int32(channels), &error))
        self.channels = channels
    }

    deinit {
        opus_decoder_destroy(int16)
        opus_decoder_destroy(probe)
    }

    /// Decodes (`packet` nil: PLC) with both; returns the Int16 output and whether converting the float output
    /// without a soft clip would have given something else.
    func decode(_ packet: [UInt8]?, fec: Bool, samples: Int) -> (pcm: [Int16], softClipped: Bool) {
        var pcm = [Int16](repeating: 0, count: samples * channels)
        var float = [Float](repeating: 0, count: samples * channels)
        let bytes = packet ?? []
        let length = Int32(bytes.count)
        let flag: Int32 = fec ? 1 : 0
        let n = bytes.withUnsafeBufferPointer { data -> Int32 in
            let pointer = packet == nil ? nil : data.baseAddress
            return pcm.withUnsafeMutableBufferPointer { out -> Int32 in
                opus_decode(int16, pointer, length, out.baseAddress!, Int32(samples), flag)
            }
        }
        let m = bytes.withUnsafeBufferPointer { data -> Int32 in
            let pointer = packet == nil ? nil : data.baseAddress
            return float.withUnsafeMutableBufferPointer { out -> Int32 in
                opus_decode_float(probe, pointer, length, out.baseAddress!, Int32(samples), flag)
            }
        }
        guard n > 0, n == m else {
            Issue.record("libopus returned \(n) (Int16) and \(m) (float)")
            return ([], false)
        }
        let count = Int(n) * channels
        let unclipped = float[..<count].map { (x: Float) -> Int16 in
            Int16(max(-32768, min(32767, (x * 32768).rounded(.toNearestOrEven))))
        }
        return (Array(pcm[..<count]), !unclipped.elementsEqual(pcm[..<count]))
    }

    func reset() {
        _ = pv_opus_decoder_reset(int16)
        _ = pv_opus_decoder_reset(probe)
    }
}

@Suite struct OpusDecoderExactnessTests {
    /// One second per kind, cycling: speech-like buzz; a 440 Hz sine at +6 dB over full scale and a 150 Hz one at
    /// +12 dB (clipped to Int16, so nearly square: decoded they overshoot ±1); a full-scale buzz ×1.5; near silence.
    static func signal(frames: Int, frameSamples: Int, channels: Int) -> [Int16] {
        var phase = 0.0
        var samples: [Int16] = []
        samples.reserveCapacity(frames * frameSamples * channels)
        for index in 0..<(frames * frameSamples) {
            let time = Double(index) / 48000
            let pitch: Double = 130 + 50 * sin(2 * Double.pi * 0.4 * time)
            phase += 2 * Double.pi * pitch / 48000
            var buzz = 0.0
            for harmonic in 1...8 { buzz += sin(Double(harmonic) * phase) / Double(harmonic) }
            let value: Double
            switch Int(time) % 5 {
            case 0: value = 0.3 * buzz * max(0, sin(2 * .pi * 2 * time))
            case 1: value = 2 * sin(2 * .pi * 440 * time)
            case 2: value = 4 * sin(2 * .pi * 150 * time)
            case 3: value = 1.5 * buzz
            default: value = 0.001 * sin(2 * .pi * 1000 * time)
            }
            samples.append(Int16(clamping: Int(value * 32767)))
            if channels == 2 { samples.append(Int16(clamping: Int(value * -20000))) }
        }
        return samples
    }

    @Test(arguments: [(48000, 1), (48000, 2), (16000, 1)])
    func matchesLibopusInt16DecodeSampleForSample(decoderRate: Int, channels: Int) throws {
        let frames = channels == 1 ? 2500 : 1200
        let encoder = try OpusEncoder(
            OpusEncoderSettings(channels: channels, bitrate: 32000, inbandFEC: true, packetLossPercent: 10))
        let pcm = Self.signal(frames: frames, frameSamples: 960, channels: channels)
        var packets: [[UInt8]] = []
        for k in 0..<frames {
            if k % 50 == 0 { try encoder.setBitrate([12000, 32000, 96000][(k / 50) % 3]) }  // SILK, hybrid, CELT
            packets.append(try encoder.encode(Array(pcm[(k * 960 * channels)..<((k + 1) * 960 * channels)])))
        }
        var random = SeededRandom(seed: UInt64(decoderRate + channels))
        var lost = [Bool](repeating: false, count: frames)
        for k in 1..<frames { lost[k] = random.unit() < (lost[k - 1] ? 0.3 : 0.1) }

        let decoder = try OpusDecoder(sampleRate: decoderRate, channels: channels)
        let reference = try ReferenceDecoders(sampleRate: decoderRate, channels: channels)
        let frameSamples = decoderRate / 50
        var (mismatches, firstMismatch, softClipped, fecDecodes, concealments, compared) = (0, -1, 0, 0, 0, 0)
        for k in 0..<frames {
            if k == frames / 2 + 25 {  // inside a loud passage: the reset must clear the soft clip's memory too
                decoder.reset()
                reference.reset()
            }
            let ours: [Int16]
            let expected: (pcm: [Int16], softClipped: Bool)
            if !lost[k] {
                ours = try decoder.decode(packets[k])
                expected = reference.decode(packets[k], fec: false, samples: frameSamples * 6)
            } else if k + 1 < frames, !lost[k + 1], random.unit() < 0.7 {
                fecDecodes += packets[k + 1][0] >> 3 < 16 ? 1 : 0  // SILK or hybrid: real FEC data
                ours = try decoder.decodeFEC(from: packets[k + 1], samples: frameSamples)
                expected = reference.decode(packets[k + 1], fec: true, samples: frameSamples)
            } else {
                // Now and then a concealment longer than 120 ms (beyond the decoder's float buffer).
                let samples = concealments % 40 == 39 ? frameSamples * 13 / 2 : frameSamples
                concealments += 1
                ours = try decoder.conceal(samples: samples)
                expected = reference.decode(nil, fec: false, samples: samples)
            }
            compared += ours.count
            softClipped += expected.softClipped ? 1 : 0
            if ours != expected.pcm {
                mismatches += 1
                if firstMismatch < 0 { firstMismatch = k }
            }
        }
        #expect(mismatches == 0, "\(mismatches) frames differ from opus_decode, the first at packet \(firstMismatch)")
        #expect(compared >= frames * frameSamples * channels)
        // The cases that matter were exercised: soft clip at work, FEC recovery, concealment.
        // (Decoded at 16 kHz these signals stay within ±1: that case checks PLC, FEC and rounding only.)
        #expect(decoderRate != 48000 || softClipped > 10, "soft clip changed \(softClipped) frames")
        #expect(fecDecodes > 20, "\(fecDecodes) FEC decodes")
        #expect(concealments > 40, "\(concealments) concealments")
    }
}
