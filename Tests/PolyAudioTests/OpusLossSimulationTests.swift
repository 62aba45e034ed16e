// The offline loss channel behind `polyvoice codec`.
import PolyAudio
import Testing

@Suite struct OpusLossSimulationTests {
    let tone = TestSignals.sine(frequency: 300, sampleRate: 48000, seconds: 1.01)

    @Test func noLossKeepsLengthAndAlignment() throws {
        let (output, report) = try OpusLossSimulation.run(tone, settings: .init(), lossPercent: 0, seed: 1)
        #expect(output.count == tone.count)
        #expect(report.lost == 0 && report.concealed == 0)
        #expect(report.packets == (tone.count + 312 + 959) / 960)
        // Aligned to within a few samples: half a period (80 samples) off would anti-correlate.
        #expect(TestSignals.correlation(tone[4800..<40000], output[4800..<40000]) > 0.9)
        #expect(TestSignals.correlation(tone[4800..<40000], output[4880..<40080]) < -0.8)
        #expect(abs(report.kilobitsPerSecond - 32) < 8)
    }

    @Test func lossIsSeededAndCounted() throws {
        let fec = OpusEncoderSettings(inbandFEC: true, packetLossPercent: 30)
        let a = try OpusLossSimulation.run(tone, settings: fec, lossPercent: 30, seed: 42)
        let b = try OpusLossSimulation.run(tone, settings: fec, lossPercent: 30, seed: 42)
        let c = try OpusLossSimulation.run(tone, settings: fec, lossPercent: 30, seed: 43)
        #expect(a.report == b.report && a.output == b.output)
        #expect(a.output != c.output)
        #expect((5...25).contains(a.report.lost))
        #expect(a.report.recoveredByFEC + a.report.concealed == a.report.lost)
        #expect(a.report.recoveredByFEC > 0)
        let plcOnly = try OpusLossSimulation.run(tone, settings: .init(), lossPercent: 30, seed: 42)
        #expect(plcOnly.report.recoveredByFEC == 0)
        #expect(plcOnly.report.concealed == a.report.lost)
        let all = try OpusLossSimulation.run(tone, settings: fec, lossPercent: 100, seed: 1)
        #expect(all.report.concealed == all.report.packets)
    }
}
