// The jitter buffer on real Opus streams with lone losses: FEC counted and used only where packets carry it.
import Foundation
import PolyAudio
import PolyCore
import PolyMedia
import Testing

@Suite struct OpusFECPlayoutTests {
    /// A voiced, syllable-paced signal (harmonics of 140 Hz under a 4 Hz envelope) that SILK's VAD takes as voice.
    static func voiced(packet k: Int) -> [Int16] {
        (0..<960).map { n in
            let t = Double(k * 960 + n) / 48_000
            let envelope = 0.55 + 0.45 * sin(2 * Double.pi * 4 * t)
            let tone = (1...12).reduce(0.0) { sum, h in sum + sin(2 * Double.pi * 140 * Double(h) * t) / Double(h) }
            return Int16(5000 * envelope * tone)
        }
    }

    /// Every 10th packet of 150 is lost; the others arrive on time. Returns the buffer's statistics, the losses, and
    /// how many of the packets after them carry LBRR (libopus codes it only after frames of enough speech activity;
    /// `OpusPacketInspectionTests` checks that flag against libopus's FEC decoding).
    static func play(_ settings: OpusEncoderSettings) throws -> (JitterBufferStatistics, lost: Int, recoverable: Int) {
        let encoder = try OpusEncoder(settings)
        var buffer = JitterBuffer(decoder: try OpusDecoder(), configuration: JitterBufferConfiguration())
        var frame = [Int16](repeating: 0, count: 480)
        var lost = 0
        var recoverable = 0
        for k in 0..<150 {
            let payload = try encoder.encode(voiced(packet: k))
            let arrival = Instant.milliseconds(Int64(k) * 20 + 30)
            if k % 10 == 6, payload.withUnsafeBufferPointer({ OpusPacketInspection.carriesLBRR($0) }) {
                recoverable += 1
            }
            if k % 10 == 5 {
                lost += 1
            } else {
                payload.withUnsafeBufferPointer {
                    buffer.insert(
                        payload: $0, timestamp: UInt32(k * 960), ssrc: 7, marker: k == 0, arrival: arrival, at: arrival)
                }
            }
            for half in 0..<2 {
                frame.withUnsafeMutableBufferPointer {
                    _ = buffer.pull(at: arrival + .milliseconds(Int64(half) * 10), into: $0)
                }
            }
        }
        return (buffer.statistics, lost, recoverable)
    }

    /// Without FEC no packet counts as carrying it and every loss is concealed (the TOC alone would have called
    /// every SILK packet an FEC carrier and each lone loss a recovery).
    @Test func streamWithoutFECIsConcealed() throws {
        let (statistics, lost, recoverable) = try Self.play(
            OpusEncoderSettings(bitrate: 32000, maxBandwidth: .wideband))
        #expect(recoverable == 0)
        #expect(statistics.fecPacketsReceived == 0)
        #expect(statistics.fecPacketsRecovered == 0)
        #expect(statistics.concealmentEvents == UInt64(lost))
    }

    /// With FEC, each lone loss whose successor carries LBRR is recovered from it, the others concealed. The first
    /// loss may be concealed too: the buffer is shallow until a loss makes it hold room for the next packet.
    @Test func streamWithFECIsRecoveredWhereItCarriesFEC() throws {
        let (statistics, lost, recoverable) = try Self.play(
            OpusEncoderSettings(bitrate: 32000, maxBandwidth: .wideband, inbandFEC: true, packetLossPercent: 10))
        #expect(recoverable >= lost / 3 && recoverable < lost)
        #expect(statistics.fecPacketsReceived > UInt64(150 - lost) / 3)
        #expect(statistics.fecPacketsRecovered + 1 >= UInt64(recoverable))
        #expect(statistics.fecPacketsRecovered <= UInt64(recoverable))
        #expect(statistics.fecPacketsRecovered + statistics.concealmentEvents == UInt64(lost))
    }
}
