// Virtual-time tests of how the jitter buffer's target follows what it measures: late losses raise it within a
// second or two, it falls slowly, isolated spikes are ridden out, and delay wander is played without late losses.
import PolyCore
import Testing

@testable import PolyMedia

@Suite struct JitterAdaptationTests {
    /// Packets every 20 ms with one-way delay `delay(k)` plus 0–4 ms of jitter.
    private func trace(count: Int, seed: UInt64 = 9, delay: (Int) -> Double) -> [TracePacket] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { k in TracePacket(index: k, arrivalMs: Double(k) * 20 + delay(k) + random.unit() * 4) }
    }

    @Test func delayStepUpRaisesTargetWithinTwoSecondsAndLateLossesStop() {
        // 30 ms for 4 s, then 110 ms: without a raise every packet after the step would arrive too late.
        let packets = trace(count: 600) { $0 < 200 ? 30 : 110 }
        var lateAtSix: UInt64 = 0
        var concealedAtSix: UInt64 = 0
        let run = runTrace(packets, durationMs: 12_000, configuration: .withoutStartDelay) { pull, buffer in
            if pull == 600 {
                lateAtSix = buffer.statistics.latePackets
                concealedAtSix = buffer.statistics.concealedSamples
            }
        }
        let before = run.targetMs[395]
        #expect(before < 40)
        #expect(run.targetMs[400 + 200] >= before + 70)  // 2 s after the step
        #expect(run.statistics.latePackets == lateAtSix)  // none from 6 s on
        #expect(run.statistics.concealedSamples == concealedAtSix)
        #expect(run.statistics.lateRewinds >= 1)
        // The step cost at most its own size in concealment (plus the detection), not an outage.
        #expect(concealedAtSix <= 160 * 48)
    }

    @Test func theLateLossFloorCoversWhatLatePacketsNeededNotTheTargetPlusTheirLateness() {
        // A loss at 2 s raises the target by a long FEC hold (100 ms) at once, and playout only stretches towards
        // it; then the delay steps from 30 to 110 ms, so packets arrive late while the playout delay is still well
        // below the target. The floor must cover what they needed (their delay of about 80 ms over the reference,
        // a pull of decoded audio, the margin and the band below the target), not the target in force plus their
        // lateness, which would count the distance between playout and target twice (about 165 ms here).
        var configuration = JitterBufferConfiguration.withoutStartDelay  // the step is inside its hold
        configuration.fecHoldFraction = 5
        let packets = trace(count: 400) { $0 < 105 ? 30 : 110 }.filter { $0.index != 100 }
        var targetAtStep = 0.0
        var playoutAtStep = 0.0
        var highestFloor = 0.0
        let run = runTrace(packets, durationMs: 8000, configuration: configuration) { pull, buffer in
            let parts = buffer.targetParts
            if pull == 2100 / 10 {
                targetAtStep = buffer.targetDelay.inMilliseconds
                playoutAtStep = parts.playoutDelayMs
            }
            highestFloor = max(highestFloor, parts.lateLossFloorMs)
        }
        #expect(targetAtStep >= playoutAtStep + 40)  // the situation this is about
        #expect(run.statistics.lateRewinds >= 1)
        let needed = 80.0 + 4 + 10
        #expect(highestFloor >= 80 + LateLossMonitor.marginMilliseconds)
        let allowed = PlayoutBand.target(lowEdge: needed + LateLossMonitor.marginMilliseconds, twentyMilliseconds: 20)
        #expect(highestFloor <= allowed)
    }

    @Test func isolatedSpikeDoesNotRaiseTheTarget() {
        // One 200 ms stall at 4 s: packets 200..<210 leave together when it ends.
        let packets = trace(count: 600) { k in (200..<210).contains(k) ? Double(210 - k) * 20 + 30 : 30 }
        let run = runTrace(packets, durationMs: 12_000)
        let before = run.targetMs[395]
        #expect(run.statistics.latePackets >= 5)
        #expect(run.statistics.lateRewinds == 0)
        // Only the FEC hold after a loss (under a packet) is added, nothing near the spike's 200 ms.
        #expect(run.targetMs[420 + 200] <= before + 20)
        #expect(run.targetMs[1150] <= before + 20)
    }

    @Test func recurringSpikesRaiseTheTargetAtTheSecond() {
        // A 120 ms stall every 3 s (Wi-Fi scans): the first is ridden out, the second raises the target, the later
        // ones are played in full.
        let stalls = [100, 250, 400, 550]
        let packets = trace(count: 700) { k in
            for start in stalls where (start..<(start + 6)).contains(k) { return Double(start + 6 - k) * 20 + 30 }
            return 30
        }
        var lateAfterSecond: UInt64 = 0
        // Without the start delay: with no pause in the tone to take it back, it would ride out the second stall too.
        let run = runTrace(packets, durationMs: 14_000, configuration: .withoutStartDelay) { pull, buffer in
            if pull == 5300 / 10 { lateAfterSecond = buffer.statistics.latePackets }
        }
        #expect(run.targetMs[95 * 2] < 40)
        #expect(run.targetMs[270 * 2] >= 100)
        #expect(run.statistics.latePackets == lateAfterSecond)  // the third and fourth stalls lost nothing
    }

    @Test func targetFallsSlowlyAfterAStepDown() {
        // 110 ms from 2 s to 6 s, 30 ms before and after.
        let packets = trace(count: 1000) { (100..<300).contains($0) ? 110 : 30 }
        let run = runTrace(packets, durationMs: 20_000)
        let raised = run.targetMs[590]
        #expect(raised >= 90)
        #expect(run.targetMs[600 + 300] >= raised - 5)  // 3 s after the step down: held
        // 12 s after: falling since the hold lapsed, about 10 s in (8 s after the last late packet), so by 3 to 10
        // seconds' worth of the floor's decay.
        let decay = LateLossMonitor.decayPerSecond
        #expect((raised - 10 * decay...raised - 3 * decay).contains(run.targetMs[600 + 1200]))
        // The playout delay follows the target down without losing packets: nothing was late after the step down.
        #expect(run.statistics.concealedSamples <= 160 * 48)
    }

    @Test func aFastRouteLeavingTheReferenceWindowDoesNotStretchSpeech() {
        // 30 ms for 3 s, then a route 60 ms slower for good. Ten seconds after the change the fast packets leave the
        // reference window: the reference rises by 60 ms, and with it every delay measured from it. The target
        // must fall with the playout delay, not stay while the playout delay falls (which stretched the speech by
        // about 60 ms to add delay that no packet needed).
        let packets = trace(count: 1000) { $0 < 150 ? 30 : 90 }
        var expandedBefore: UInt64 = 0
        var lateBefore: UInt64 = 0
        // The FEC hold after the step's losses lapses before the reference moves, so that only the move is seen.
        var configuration = JitterBufferConfiguration()
        configuration.fecHoldAfterLoss = .seconds(5)
        let run = runTrace(packets, durationMs: 20_000, configuration: configuration) { pull, buffer in
            if pull == 1250 {
                expandedBefore = buffer.statistics.insertedSamplesForDeceleration
                lateBefore = buffer.statistics.latePackets
            }
        }
        let targetBefore = run.targetMs[1250]
        #expect(targetBefore >= 60)  // the step raised it (measured from the fast route)
        let expandedAfter = run.statistics.insertedSamplesForDeceleration - expandedBefore
        // No more than 2 ms of stretching once the reference moved (it measures none). The floor moves its low edge
        // with the delays; when it moved as a target, the band's narrowing below 80 ms left the delay under the low
        // edge and 5 to 10 ms were stretched to climb back.
        #expect(expandedAfter <= 2 * 48)
        #expect(run.targetMs[1950] <= targetBefore - 40)  // measured from the slow route now
        #expect(run.statistics.latePackets == lateBefore)  // and no packet came too late for the lower target
    }

    @Test func delayWanderDoesNotCauseRepeatedLateLosses() {
        // AR(1) queueing delay with a time constant of seconds (the `wander` trace family, 60 s).
        let generated = TraceProfile.wander.generate(packets: 3000, seed: 4)
        let packets = generated.entries.map { TracePacket(index: $0.sequence, arrivalMs: $0.arrivalMs) }
        var lateAtTen: UInt64 = 0
        let run = runTrace(packets, durationMs: 60_500) { pull, buffer in
            if pull == 1000 { lateAtTen = buffer.statistics.latePackets }
        }
        #expect(run.statistics.latePackets - lateAtTen <= 3)
        // Concealment beyond the trace's own losses (1 %) stays small.
        let lost = packets.filter { $0.arrivalMs == nil }.count
        #expect(run.statistics.concealedSamples <= UInt64(lost * 960 + 10 * 480))
    }
}

@Suite struct LateLossMonitorTests {
    @Test func oneBurstOfLatePacketsIsAnIsolatedSpike() {
        var monitor = LateLossMonitor()
        for i in 0..<5 {
            let raised = monitor.lateArrival(atMs: 1000 + Double(i) * 0.2, neededDelayMs: 110)
            #expect(!raised)
        }
        #expect(monitor.floorMilliseconds(atMs: 1100) == 0)
    }

    @Test func aSecondEpisodeWithinTheMemoryRaisesTheFloorByItsLateness() {
        var monitor = LateLossMonitor()
        _ = monitor.lateArrival(atMs: 1000, neededDelayMs: 110)
        let second = monitor.lateArrival(atMs: 4000, neededDelayMs: 80)
        #expect(second)
        // A band whose low edge is the needed delay plus the margin: 20 ms below a target over 80 ms.
        #expect(monitor.floorMilliseconds(atMs: 4000) == 80 + LateLossMonitor.marginMilliseconds + 20)
        // 20 s later the episode before is outside the memory: isolated again.
        let third = monitor.lateArrival(atMs: 24_000, neededDelayMs: 80)
        #expect(!third)
    }

    @Test func lateArrivalsOneAfterAnotherRaiseWithinSixtyMilliseconds() {
        var monitor = LateLossMonitor()
        let raised = (0..<6).map { monitor.lateArrival(atMs: 1000 + Double($0) * 20, neededDelayMs: 60) }
        #expect(raised == [false, false, false, true, true, true])
    }

    @Test func aReferenceMoveShiftsTheLowEdgeTheFloorGuaranteesByTheSameAmount() {
        // Across 80 ms the band changes from a quarter of the target to 20 ms, so shifting the target instead would
        // move the low edge by 48 ms down here, and by 53 ms up.
        for (needed, delta) in [(63.0, -60.0), (30.0, 60.0)] {
            var monitor = LateLossMonitor()
            _ = monitor.lateArrival(atMs: 0, neededDelayMs: needed)
            _ = monitor.lateArrival(atMs: 60, neededDelayMs: needed)
            let before = PlayoutBand(target: monitor.floorMilliseconds(atMs: 60), twentyMilliseconds: 20).low
            #expect(abs(before - (needed + LateLossMonitor.marginMilliseconds)) < 1e-9)
            monitor.shiftFloor(by: delta)
            let after = PlayoutBand(target: monitor.floorMilliseconds(atMs: 60), twentyMilliseconds: 20).low
            #expect(abs(after - (before + delta)) < 1e-9)
        }
    }

    @Test func theFloorIsHeldThenFallsSlowly() {
        var monitor = LateLossMonitor()
        _ = monitor.lateArrival(atMs: 0, neededDelayMs: 120)
        _ = monitor.lateArrival(atMs: 60, neededDelayMs: 120)
        let floor = monitor.floorMilliseconds(atMs: 60)
        #expect(floor == 150)
        #expect(monitor.floorMilliseconds(atMs: 60 + LateLossMonitor.holdMilliseconds) == floor)
        let later = monitor.floorMilliseconds(atMs: 60 + LateLossMonitor.holdMilliseconds + 5000)
        #expect(abs(later - (floor - 5 * LateLossMonitor.decayPerSecond)) < 1e-9)
        #expect(monitor.floorMilliseconds(atMs: 1_000_000) == 0)
    }
}
