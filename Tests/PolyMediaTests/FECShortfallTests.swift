// Tests of the FEC shortfall rule: when the packet after a lost one arrives after the lost one was due, the FEC hold
// grows by that shortfall, so later losses are recovered from the next packet's FEC.
import PolyCore
import Testing

@testable import PolyMedia

@Suite struct FECShortfallMonitorTests {
    private let packetMs = 20.0

    @Test func theNextPacketArrivingLateForFECRaisesTheHoldByItsShortfall() {
        var monitor = FECShortfallMonitor()
        monitor.concealedWithoutNext(nextTimestamp: 1920, atMs: 1000)
        monitor.arrival(timestamp: 1920, packetSamples: 960, atMs: 1007, packetMs: packetMs)
        #expect(monitor.misses == 1)
        #expect(monitor.extraMilliseconds(atMs: 1007) == 7 + FECShortfallMonitor.marginMilliseconds)
        // A second miss adds to the hold already in force (it was not enough), up to the most it may grow.
        monitor.concealedWithoutNext(nextTimestamp: 9600, atMs: 2000)
        monitor.arrival(timestamp: 9600, packetSamples: 960, atMs: 2004, packetMs: packetMs)
        #expect(monitor.extraMilliseconds(atMs: 2004) == 7 + 4 + 2 * FECShortfallMonitor.marginMilliseconds)
        for k in 0..<10 {
            let next = Int64(20_000 + k * 960)
            monitor.concealedWithoutNext(nextTimestamp: next, atMs: 3000 + Double(k) * 100)
            monitor.arrival(timestamp: next, packetSamples: 960, atMs: 3019 + Double(k) * 100, packetMs: packetMs)
        }
        #expect(monitor.extraMilliseconds(atMs: 4000) == FECShortfallMonitor.maximumMilliseconds)
    }

    @Test func otherPacketsDoNotCount() {
        var monitor = FECShortfallMonitor()
        monitor.concealedWithoutNext(nextTimestamp: 1920, atMs: 1000)
        monitor.arrival(timestamp: 2880, packetSamples: 960, atMs: 1005, packetMs: packetMs)
        #expect(monitor.misses == 0)
        #expect(monitor.extraMilliseconds(atMs: 1005) == 0)
        // Still waiting: the awaited packet counts from when the concealment began, not from a later step of it.
        monitor.concealedWithoutNext(nextTimestamp: 1920, atMs: 1010)
        monitor.arrival(timestamp: 1920, packetSamples: 960, atMs: 1012, packetMs: packetMs)
        #expect(monitor.extraMilliseconds(atMs: 1012) == 12 + FECShortfallMonitor.marginMilliseconds)
    }

    @Test func theConcealedPacketArrivingLateMeansItWasNotLost() {
        var monitor = FECShortfallMonitor()
        monitor.concealedWithoutNext(nextTimestamp: 1920, atMs: 1000)
        // A stall released its queue: the concealed packet itself, then the next one.
        monitor.arrival(timestamp: 960, packetSamples: 960, atMs: 1008, packetMs: packetMs)
        monitor.arrival(timestamp: 1920, packetSamples: 960, atMs: 1008, packetMs: packetMs)
        #expect(monitor.misses == 0)
        #expect(monitor.extraMilliseconds(atMs: 1008) == 0)
    }

    @Test func theConcealedPacketArrivingAfterItsSuccessorTakesTheRaiseBack() {
        var monitor = FECShortfallMonitor()
        monitor.concealedWithoutNext(nextTimestamp: 960, atMs: 0)
        monitor.arrival(timestamp: 960, packetSamples: 960, atMs: 10, packetMs: packetMs)
        monitor.concealedWithoutNext(nextTimestamp: 1920, atMs: 1000)
        monitor.arrival(timestamp: 1920, packetSamples: 960, atMs: 1006, packetMs: packetMs)
        #expect(monitor.extraMilliseconds(atMs: 1006) == 10 + 6 + 2 * FECShortfallMonitor.marginMilliseconds)
        monitor.arrival(timestamp: 960, packetSamples: 960, atMs: 1007, packetMs: packetMs)
        #expect(monitor.misses == 1)
        #expect(monitor.extraMilliseconds(atMs: 1007) == 10 + FECShortfallMonitor.marginMilliseconds)
    }

    @Test func aNextPacketLaterThanAPacketIsALateLossNotAFECMiss() {
        var monitor = FECShortfallMonitor()
        monitor.concealedWithoutNext(nextTimestamp: 1920, atMs: 1000)
        monitor.arrival(timestamp: 1920, packetSamples: 960, atMs: 1300, packetMs: packetMs)
        #expect(monitor.misses == 0)
        #expect(monitor.extraMilliseconds(atMs: 1300) == 0)
    }

    @Test func theHoldIsKeptThenFallsSlowly() {
        var monitor = FECShortfallMonitor()
        monitor.concealedWithoutNext(nextTimestamp: 1920, atMs: 0)
        monitor.arrival(timestamp: 1920, packetSamples: 960, atMs: 15, packetMs: packetMs)
        let extra = monitor.extraMilliseconds(atMs: 15)
        #expect(extra == 20)
        #expect(monitor.extraMilliseconds(atMs: 15 + FECShortfallMonitor.holdMilliseconds) == extra)
        let later = monitor.extraMilliseconds(atMs: 15 + FECShortfallMonitor.holdMilliseconds + 2000)
        #expect(abs(later - (extra - 2 * FECShortfallMonitor.decayPerSecond)) < 1e-9)
        #expect(monitor.extraMilliseconds(atMs: 1_000_000) == 0)
    }
}

@Suite struct FECShortfallBufferTests {
    @Test func onAQuietPathTheFirstMissTeachesTheBufferToWaitForTheNextPacketsFEC() {
        // 20 ms packets, 30 ms on the way with 0–4 ms of jitter; from 12 s on, every 50th packet is lost. Playout
        // has settled at its lowest delay by then, where the packet after a loss arrives after the lost one is due.
        var random = SeededRandom(seed: 21)
        let packets = (0..<1500).map { k in
            TracePacket(index: k, arrivalMs: k >= 600 && k % 50 == 10 ? nil : Double(k) * 20 + 30 + random.unit() * 4)
        }
        let losses = packets.filter { $0.arrivalMs == nil }.count
        let run = runTrace(packets, durationMs: 30_300)
        #expect(losses == 18)
        // Without the rule none of them was recovered (the level control kept the delay just below what FEC needs).
        #expect(run.statistics.fecPacketsRecovered >= UInt64(losses - 2))
        #expect(run.statistics.concealmentEvents <= 3)
        #expect(run.statistics.latePackets == 0)
        // The extra hold is kept while it is used, then decays to the plain FEC hold once no next packet comes late.
        #expect(run.targetMs[1400] > 40)
        #expect(run.targetMs.last! <= 32)
    }
}
