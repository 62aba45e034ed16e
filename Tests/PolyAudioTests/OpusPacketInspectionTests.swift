// OpusPacketInspection against libopus itself: the first frame's byte range (taken from `opus_packet_parse`'s
// pointers) on packets libopus's repacketizer built and on random bytes, and the LBRR flag against what `decode_fec`
// does (FEC audio differs from concealment exactly when the packet carries LBRR).
import COpus
import PolyAudio
import Testing

@Suite struct OpusPacketInspectionTests {
    /// libopus's answer: the first frame's range, or nil when it rejects the packet or the frame is empty.
    static func libopusFirstFrame(_ packet: [UInt8]) -> Range<Int>? {
        var toc: UInt8 = 0
        var frames = [UnsafePointer<UInt8>?](repeating: nil, count: 48)
        var sizes = [Int16](repeating: 0, count: 48)
        var offset: Int32 = 0
        return packet.withUnsafeBufferPointer { buffer -> Range<Int>? in
            guard let base = buffer.baseAddress else { return nil }
            let count = opus_packet_parse(base, Int32(buffer.count), &toc, &frames, &sizes, &offset)
            guard count > 0, let first = frames[0], sizes[0] > 0 else { return nil }
            let start = first - base
            return start..<(start + Int(sizes[0]))
        }
    }

    static func firstFrame(_ packet: [UInt8]) -> Range<Int>? {
        packet.withUnsafeBufferPointer { OpusPacketInspection.firstFrame($0) }
    }

    static func carriesLBRR(_ packet: [UInt8]) -> Bool {
        packet.withUnsafeBufferPointer { OpusPacketInspection.carriesLBRR($0) }
    }

    static func encode(_ pcm: [Int16], _ settings: OpusEncoderSettings) throws -> [[UInt8]] {
        let encoder = try OpusEncoder(settings)
        let frame = encoder.frameSamples * settings.channels
        return try stride(from: 0, to: pcm.count - frame + 1, by: frame).map {
            try encoder.encode(Array(pcm[$0..<($0 + frame)]))
        }
    }

    /// Packets of code 1, 2 and 3 (CBR and VBR, padded) made by libopus's repacketizer from real ones.
    @Test func framingMatchesLibopusOnRepacketizedPackets() throws {
        let speech = try espeakSpeech("Framing of several frames in one packet.")
        // Constant bitrate too, so that two frames often have one size (code 1); the repacketizer joins only frames
        // of one TOC configuration.
        let pcm = Array(speech.prefix(48000))
        let packets =
            try Self.encode(pcm, OpusEncoderSettings(bitrate: 24000))
            + Self.encode(pcm, OpusEncoderSettings(bitrate: 24000, vbr: false))
        let repacketizer = try #require(opus_repacketizer_create())
        defer { opus_repacketizer_destroy(repacketizer) }
        var checked = Set<UInt8>()
        for start in stride(from: 0, to: packets.count - 3, by: 3) {
            for count in 1...3 where Set(packets[start..<(start + count)].map { $0[0] >> 2 }).count == 1 {
                opus_repacketizer_init(repacketizer)
                for packet in packets[start..<(start + count)] {
                    let status = packet.withUnsafeBufferPointer { buffer in
                        opus_repacketizer_cat(repacketizer, buffer.baseAddress!, Int32(buffer.count))
                    }
                    #expect(status == OPUS_OK)
                }
                var out = [UInt8](repeating: 0, count: 4000)
                let length = Int(opus_repacketizer_out(repacketizer, &out, 4000))
                #expect(length > 0)
                var combined = Array(out.prefix(length))
                checked.insert(combined[0] & 3)
                #expect(Self.firstFrame(combined) == Self.libopusFirstFrame(combined))
                #expect(Self.firstFrame(combined) != nil)
                // Padded (code 3 with the padding flag) to a length that needs two padding-length bytes.
                let padded = length + 300
                combined += [UInt8](repeating: 0, count: 300)
                #expect(opus_packet_pad(&combined, Int32(length), Int32(padded)) == OPUS_OK)
                checked.insert(combined[0] & 3)
                #expect(combined[1] & 0x40 != 0)
                #expect(Self.firstFrame(combined) == Self.libopusFirstFrame(combined))
            }
        }
        #expect(checked == [0, 1, 2, 3])
    }

    /// Random bytes (and random cuts of real packets): never a read past the end, and wherever libopus accepts the
    /// packet, the same first frame.
    @Test func framingNeverTrustsLengths() throws {
        var generator = SplitMix64(seed: 21)
        let speech = try espeakSpeech("Bytes.")
        let real = try Self.encode(Array(speech.prefix(24000)), OpusEncoderSettings())
        var agreed = 0
        for round in 0..<20000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int(generator.next() % 40)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            } else {
                let packet = real[Int(generator.next() % UInt64(real.count))]
                bytes = Array(packet.prefix(Int(generator.next() % UInt64(packet.count + 1))))
                if let first = bytes.first { bytes[0] = first & 0xFC | UInt8(generator.next() % 4) }
            }
            let ours = Self.firstFrame(bytes)
            if let frame = ours { #expect(frame.lowerBound >= 1 && frame.upperBound <= bytes.count) }
            _ = Self.carriesLBRR(bytes)
            if let theirs = Self.libopusFirstFrame(bytes) {
                #expect(ours == theirs, "\(bytes)")
                agreed += 1
            }
        }
        #expect(agreed > 1000)
    }

    /// For each packet, decoders fed the same packets before it either decode FEC from it or conceal: libopus
    /// gives the two different audio exactly when the packet carries LBRR for the frame before it. (Where the
    /// packet's configuration differs from the last one decoded, libopus's FEC path also switches mode or band
    /// and differs without LBRR: those packets are left out.)
    @Test(arguments: [
        (
            "SILK wideband mono, FEC",
            OpusEncoderSettings(bitrate: 32000, maxBandwidth: .wideband, inbandFEC: true, packetLossPercent: 10)
        ),
        ("hybrid fullband mono, FEC", OpusEncoderSettings(bitrate: 40000, inbandFEC: true, packetLossPercent: 10)),
        (
            "SILK wideband stereo, FEC",
            OpusEncoderSettings(
                channels: 2, bitrate: 40000, maxBandwidth: .wideband, inbandFEC: true, packetLossPercent: 10)
        ),
        ("SILK wideband mono, no FEC", OpusEncoderSettings(bitrate: 32000, maxBandwidth: .wideband)),
    ])
    func lbrrFlagMatchesWhatDecodeFECDoes(name: String, settings: OpusEncoderSettings) throws {
        let mono = try espeakSpeech("Thank you for calling. How can I help?")
        let pcm = settings.channels == 2 ? mono.flatMap { [$0, $0 / 2] } : mono
        let packets = Array(try Self.encode(pcm, settings).prefix(110))
        let frame = settings.frameSamples
        var withLBRR = 0
        var compared = 0
        for index in 2..<packets.count where packets[index][0] >> 2 == packets[index - 2][0] >> 2 {
            compared += 1
            let fec = try OpusDecoder(sampleRate: settings.sampleRate, channels: settings.channels)
            let plc = try OpusDecoder(sampleRate: settings.sampleRate, channels: settings.channels)
            for packet in packets[0..<(index - 1)] {
                _ = try fec.decode(packet)
                _ = try plc.decode(packet)
            }
            let recovered = try fec.decodeFEC(from: packets[index], samples: frame)
            let concealed = try plc.conceal(samples: frame)
            let flag = Self.carriesLBRR(packets[index])
            #expect(flag == (recovered != concealed), "\(name): packet \(index), TOC config \(packets[index][0] >> 3)")
            withLBRR += flag ? 1 : 0
        }
        #expect(compared > packets.count * 3 / 4, "\(name): \(compared) of \(packets.count) compared")
        if settings.inbandFEC {
            #expect(withLBRR > compared / 3, "\(name): \(withLBRR) of \(compared) carry LBRR")
        } else {
            #expect(withLBRR == 0)
        }
    }
}

/// A small seeded generator (SplitMix64), so the random packets are the same in every run.
private struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
