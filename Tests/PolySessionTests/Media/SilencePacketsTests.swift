// Digital silence: stored packets on a clean path, coding at complexity 0 on a lossy one, so that the speech after
// a pause keeps its in-band FEC.
import PolyAudio
import Testing

@testable import PolySession

@Suite struct SilencePacketsTests {
    private typealias Step = SilencePackets.Step

    /// The steps for frames given as (silent, codesFEC).
    private func steps(_ frames: [(silent: Bool, fec: Bool)], hasStoredPacket: Bool = true) -> [Step] {
        var packets = SilencePackets()
        return frames.map { packets.step(silent: $0.silent, codesFEC: $0.fec, hasStoredPacket: hasStoredPacket) }
    }

    private let coded = Step.code(reset: false, complexity: nil)

    @Test func aCleanPathSendsTheStoredPacketAndResetsBeforeSound() {
        let frames = [(false, false), (true, false), (true, false), (true, false), (true, false), (false, false)]
        #expect(steps(frames) == [coded, coded, coded, .sendStored, .sendStored, .code(reset: true, complexity: nil)])
    }

    @Test func aLossyPathCodesThePauseAtLowComplexityWithoutAReset() {
        let frames = [(true, true), (true, true), (true, true), (true, true), (false, true), (false, true)]
        #expect(
            steps(frames) == [
                coded, coded, .code(reset: false, complexity: .lower), coded,
                .code(reset: false, complexity: .restore), coded,
            ])
        // Without a stored packet a clean path codes cheaply too.
        let withoutStored = steps([(true, false), (true, false), (true, false)], hasStoredPacket: false)
        #expect(withoutStored.last == .code(reset: false, complexity: .lower))
    }

    @Test func fecChangingInsideAPauseSwitchesBetweenTheTwo() {
        // On: the encoder's memory is of the audio before the stored packets, so it starts afresh on the zeros.
        let on = [(true, false), (true, false), (true, false), (true, true), (true, true), (false, true)]
        #expect(
            steps(on) == [
                coded, coded, .sendStored, .code(reset: true, complexity: .lower), coded,
                .code(reset: false, complexity: .restore),
            ])
        // Off: stored packets from then on, and sound finds the encoder both lowered and stale.
        let off = [(true, true), (true, true), (true, true), (true, false), (false, false)]
        #expect(
            steps(off) == [
                coded, coded, .code(reset: false, complexity: .lower), .sendStored,
                .code(reset: true, complexity: .restore),
            ])
    }

    /// Whether a single-frame SILK or hybrid packet carries FEC (LBRR) for the frame before it: after the TOC byte,
    /// SILK's range coder starts with the frame's voice activity flag and the packet's LBRR flag as its two top bits.
    private func carriesLBRR(_ packet: [UInt8]) -> Bool {
        packet.count > 2 && packet[0] >> 3 < 16 && packet[0] & 3 == 0 && (packet[1] >> 6) & 1 == 1
    }

    /// Real libopus on the speech fixture (its sentences end in 280–300 ms of digital silence), FEC on (5 % loss
    /// hint) throughout: the endpoint's way through the pauses leaves as many packets with FEC as an encoder that
    /// coded them at full complexity, where a reset encoder (stored packets through each pause) leaves fewer: its
    /// voice activity detector starts afresh and rates more soft frames below SILK's threshold for FEC.
    @Test func speechAfterAPauseKeepsItsFEC() throws {
        let speech = try Signals.speech()
        enum Policy { case fullComplexity, storedAndReset, endpoint }
        func encode(_ policy: Policy) throws -> [[UInt8]] {
            let settings = OpusEncoderSettings(
                bitrate: 64_000, maxBandwidth: .wideband, inbandFEC: true, packetLossPercent: 5)
            let encoder = try OpusEncoder(settings)
            let stored = try encoder.encode([Int16](repeating: 0, count: 960))
            encoder.reset()
            var silence = SilencePackets()
            var packets: [[UInt8]] = []
            for start in stride(from: 0, to: speech.count - 959, by: 960) {
                let frame = Array(speech[start..<(start + 960)])
                let step = silence.step(
                    silent: frame.allSatisfy { $0 == 0 }, codesFEC: policy == .endpoint, hasStoredPacket: true)
                switch (policy, step) {
                case (.fullComplexity, _): break
                case (_, .sendStored):
                    packets.append(stored)
                    continue
                case (_, .code(let reset, let complexity)):
                    if reset { encoder.reset() }
                    if complexity == .lower { try encoder.setComplexity(0) }
                    if complexity == .restore { try encoder.setComplexity(settings.complexity) }
                }
                packets.append(try encoder.encode(frame))
            }
            return packets
        }
        let full = try encode(.fullComplexity)
        let reset = try encode(.storedAndReset)
        let endpoint = try encode(.endpoint)
        // The flag as read agrees with libopus: the next packet's FEC decode differs from concealment by the same
        // decoder exactly when it is set (the first 2 s of the reset stream, its first pause included).
        for lost in 1..<100 {
            let fec = try OpusDecoder()
            let plc = try OpusDecoder()
            for packet in reset[..<lost] {
                _ = try fec.decode(packet)
                _ = try plc.decode(packet)
            }
            let recovered = try fec.decodeFEC(from: reset[lost + 1], samples: 960) != plc.conceal(samples: 960)
            #expect(recovered == carriesLBRR(reset[lost + 1]), "packet \(lost + 1)")
        }
        let counts = [full, reset, endpoint].map { $0.filter(carriesLBRR).count }
        #expect(counts[0] > full.count / 2, "FEC in \(counts[0]) of \(full.count) packets at full complexity")
        #expect(counts[2] >= counts[0] - 1, "FEC in \(counts[2]) packets, \(counts[0]) at full complexity")
        #expect(counts[1] < counts[0], "a reset encoder kept FEC in \(counts[1]) packets, \(counts[0]) at full")
    }
}
