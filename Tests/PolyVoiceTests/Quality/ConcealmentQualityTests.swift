// Issue #20: a call whose packets all arrived but missed their playout concealed a quarter of its audio while its
// MOS said 4.30 and no warning was raised. MOS and warnings now count what playout concealed and stretched.
import PolyCore
import PolyMedia
import Testing

@testable import PolyVoice

@Suite("Concealment in quality")
struct ConcealmentQualityTests {
    /// One-second stats snapshots of a 48 kHz call: 50 packets/s, none lost, jitter 0.2–0.8 ms, RTT 1 ms, and
    /// `concealed(second)` samples concealed in each second.
    static func snapshots(seconds: Int, seed: UInt64, concealed: (inout SeededRandom) -> UInt64) -> [MediaStats] {
        var random = SeededRandom(seed: seed)
        var stats = MediaStats()
        stats.remoteInboundRtp.roundTripTime = 0.001
        var result = [stats]
        for _ in 0..<seconds {
            stats.inboundRtp.packetsReceived += 50
            stats.inboundRtp.jitter = 0.0002 + random.unit() * 0.0006
            stats.inboundRtp.totalSamplesReceived += 48_000
            stats.inboundRtp.concealedSamples += concealed(&random)
            result.append(stats)
        }
        return result
    }

    /// Feeds snapshots through the call's sampling and the monitor; returns every event and each second's MOS.
    static func monitor(_ snapshots: [MediaStats]) -> (events: [QualityWarningEvent], mos: [Double]) {
        var monitor = QualityMonitor()
        var events: [QualityWarningEvent] = []
        var mos: [Double] = []
        for (previous, stats) in zip(snapshots, snapshots.dropFirst()) {
            events += monitor.add(CallQualityLoop.sample(stats, since: previous, inputLevel: .nan))
            mos.append(monitor.latestMOS ?? 0)
        }
        return (events, mos)
    }

    @Test("The issue's call (no loss, 10,000–20,000 samples concealed a second) warns and scores a low MOS")
    func steadyConcealmentWithoutLossWarns() {
        let call = Self.snapshots(seconds: 25, seed: 20) { 10_000 + UInt64($0.unit() * 10_000) }
        let (events, mos) = Self.monitor(call)
        #expect(events.prefix(2).contains(.raised(.highConcealment)))
        #expect(events.contains(.raised(.lowMOS)))
        #expect(!events.contains(.raised(.highLoss)))
        #expect(mos.dropFirst(2).allSatisfy { $0 < 3 }, "\(mos)")
    }

    @Test("A clean call (an isolated 20 ms concealment now and then) raises nothing; its MOS stays high")
    func cleanCallDoesNotWarn() {
        let call = Self.snapshots(seconds: 25, seed: 21) { $0.unit() < 0.1 ? 960 : 0 }
        let (events, mos) = Self.monitor(call)
        #expect(events.isEmpty, "\(events)")
        // A second with one 20 ms concealment (2 %) scores like a second with 2 % loss; the others as before.
        #expect(mos.allSatisfy { $0 > 3.9 }, "\(mos)")
        #expect(mos.count { $0 > 4.3 } >= 15, "\(mos)")
    }

    @Test("The sample takes the concealed and stretched shares of the samples played since the last one")
    func sampleShares() {
        var before = MediaStats()
        before.inboundRtp.totalSamplesReceived = 96_000
        before.inboundRtp.concealedSamples = 1000
        before.inboundRtp.insertedSamplesForDeceleration = 100
        var after = before
        after.inboundRtp.totalSamplesReceived += 48_000
        after.inboundRtp.concealedSamples += 4800
        after.inboundRtp.insertedSamplesForDeceleration += 960
        after.inboundRtp.removedSamplesForAcceleration += 480
        let sample = CallQualityLoop.sample(after, since: before, inputLevel: -30)
        #expect(abs(sample.concealedFraction - 0.1) < 1e-9)
        #expect(abs(sample.stretchedFraction - 0.03) < 1e-9)
        // Nothing played (or the counters restarted with a new stream): no share, rather than a division by zero.
        let restarted = CallQualityLoop.sample(MediaStats(), since: after, inputLevel: -30)
        #expect(restarted.concealedFraction == 0)
        #expect(restarted.stretchedFraction == 0)
    }

    @Test("MOS falls with the concealed share and, less, with the stretched share; repaired loss is not counted twice")
    func mosCountsConcealment() {
        func mos(loss: Double = 0, concealed: Double = 0, stretched: Double = 0) -> Double {
            QualityMonitor.mosEstimate(
                rtt: .milliseconds(40), jitter: .milliseconds(2), loss: loss, concealed: concealed, stretched: stretched
            )
        }
        #expect(mos(concealed: 0.26) < 2.5)
        #expect(mos(concealed: 0.05) < mos(concealed: 0.01))
        #expect(mos(stretched: 0.05) < mos())
        #expect(mos(stretched: 0.05) > mos(concealed: 0.05))
        // 3 % lost, 1 % heard (FEC repaired the rest): scored as the 3 % loss, as before.
        #expect(mos(loss: 0.03, concealed: 0.01) == mos(loss: 0.03))
    }

    @Test("High concealment clears once playout is clean again")
    func concealmentClears() {
        var monitor = QualityMonitor()
        var events: [QualityWarningEvent] = []
        func add(_ concealed: Double) {
            events += monitor.add(
                QualitySample(
                    rtt: .milliseconds(1), jitter: .zero, lossFraction: 0, inputLevelDBFS: nil,
                    concealedFraction: concealed))
        }
        for _ in 0..<5 { add(0.25) }
        for _ in 0..<5 { add(0) }
        #expect(
            events.filter { $0 == .raised(.highConcealment) || $0 == .cleared(.highConcealment) }
                == [.raised(.highConcealment), .cleared(.highConcealment)])
        #expect(monitor.active.isEmpty)
    }
}
