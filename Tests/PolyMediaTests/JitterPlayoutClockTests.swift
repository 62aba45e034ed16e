// Issue #20: a call receiving every packet on time concealed a quarter of its audio. Its shell pulls 20 ms on a
// frame clock of the sender's pace; when the arrivals sit just before that clock's tick, a few ms of scheduling
// delay on either side make a packet miss the pull that needs it. The buffer concealed half a packet, skipped
// it, and played the rest of the packet when it came; the level it measures at the pulls looked on target, so
// nothing ever moved the playout point, and this repeated for the whole call.
import PolyCore
import Testing

@testable import PolyMedia

@Suite struct JitterPlayoutClockTests {
    /// Arrivals a little before the tick (16.5–19.5 ms after the previous one), sender ticks up to 4 or 8 ms late.
    static let phases: [Double] = [16.5, 17, 17.5, 18, 18.5, 19, 19.5]

    @Test(arguments: [(4.0, 4.0), (8.0, 8.0), (4.0, 0.0)])
    func arrivalsAtTheTickNeverSettleIntoSteadyConcealment(sendLate: Double, tickLate: Double) {
        for (i, phase) in Self.phases.enumerated() {
            var scenario = PlayoutClockScenario(arrivalPhaseMs: phase)
            scenario.seed = 100 + UInt64(i)
            scenario.sendLateMs = { $0.unit() * sendLate }
            scenario.tickLateMs = { $0.unit() * tickLate }
            let run = runPlayoutClock(scenario)
            // Everything arrives: at most a few underflows while the buffer learns the phase, none afterwards.
            #expect(run.concealedShare < 0.01, "phase \(phase): \(run.concealedShare * 100) % concealed")
            let concealingSeconds = run.concealedPerSecond.dropFirst(3).count { $0 > 0 }
            #expect(concealingSeconds <= 1, "phase \(phase): \(run.concealedPerSecond)")
            #expect(run.statistics.meanDelayMilliseconds < 60)
        }
    }

    @Test func catchUpTicksDoNotCauseSteadyConcealment() {
        // Now and then a tick is 22–32 ms late and the next one follows 2 ms after it (the loop catching up).
        for (i, phase) in Self.phases.enumerated() {
            var scenario = PlayoutClockScenario(arrivalPhaseMs: phase)
            scenario.seed = 200 + UInt64(i)
            scenario.sendLateMs = { $0.unit() * 8 }
            scenario.tickLateMs = { random in random.unit() < 0.02 ? 22 + random.unit() * 10 : random.unit() * 8 }
            let run = runPlayoutClock(scenario)
            #expect(run.concealedShare < 0.01, "phase \(phase): \(run.concealedShare * 100) % concealed")
        }
    }

    @Test func underflowsStartingMidCallRaiseTheTargetWithinASecondAndStop() {
        // Clean for 5 s with the arrivals right before the tick, then the sender's ticks start running late.
        // Without the start delay: with no pause in the tone to take it back, its delay would absorb the late ticks.
        var scenario = PlayoutClockScenario(arrivalPhaseMs: 19, configuration: .withoutStartDelay)
        scenario.seed = 300
        var sent = 0
        scenario.sendLateMs = { random in
            sent += 1
            return sent > 250 ? random.unit() * 4 : 0
        }
        let run = runPlayoutClock(scenario)
        #expect(run.concealedPerSecond.prefix(5).allSatisfy { $0 == 0 })
        let before = run.targetMs[249]
        let after = run.targetMs[300]  // one second after the onset
        #expect(after >= before + 10, "target \(before) → \(after) ms")
        #expect(run.concealedPerSecond.dropFirst(6).allSatisfy { $0 == 0 }, "\(run.concealedPerSecond)")
    }

    @Test func waitsWhileTheDelayGrowsTowardsTheTargetAddNoHeadroom() {
        // Clean for 2 s, then reordering jitter (40 ms + normal σ 30 ms per packet), as in the relay's jitter
        // scenario. The buffer runs dry and waits while its delay grows towards the target the spread raised; the
        // target already asks for that delay, so keeping the waits as headroom too would count it twice (the peaks
        // were 20–40 ms on these seeds, mean 29, and held the delay that much above what the packets needed).
        let peaks = (UInt64(400)..<408).map { seed -> Double in
            var scenario = PlayoutClockScenario(arrivalPhaseMs: 10)
            scenario.seed = seed
            scenario.seconds = 10
            var sent = 0
            scenario.sendLateMs = { random in
                sent += 1
                return sent > 100 ? random.normal(mean: 40, standardDeviation: 30) : 0
            }
            return runPlayoutClock(scenario).headroomMs[100..<300].max()!
        }
        // Waits that took the delay above the band's low edge still count (a seed or two), the rest do not.
        #expect(peaks.reduce(0, +) / Double(peaks.count) <= 20, "headroom peaks \(peaks) ms")
    }

    @Test func withoutTimeStretchWaitsStopOnceTheirDelayIsFull() {
        // A bridge's agents play without time-stretching, so nothing takes a wait's delay back: a minute of catch-up
        // ticks and late sender ticks must neither settle into concealment nor pile up delay.
        var configuration = JitterBufferConfiguration()
        configuration.maximumStretchRatio = 0
        for (i, phase) in Self.phases.enumerated() {
            var scenario = PlayoutClockScenario(arrivalPhaseMs: phase, seconds: 60, configuration: configuration)
            scenario.seed = 400 + UInt64(i)
            scenario.sendLateMs = { $0.unit() * 8 }
            scenario.tickLateMs = { random in random.unit() < 0.02 ? 22 + random.unit() * 10 : random.unit() * 8 }
            let run = runPlayoutClock(scenario)
            #expect(run.concealedShare < 0.01, "phase \(phase): \(run.concealedShare * 100) % concealed")
            // At most three 20 ms waits on top of a clean delay (under 20 ms after the phase).
            #expect(run.statistics.meanDelayMilliseconds < 20 + 20 + 60, "phase \(phase)")
            #expect(run.targetMs.last! <= 12 + 60 + 1)
        }
    }

    @Test func cleanClockedPlayoutConcealsNothingWithLowDelay() {
        for phase in stride(from: 0.5, to: 20, by: 2.5) {
            // The clock's own delay; with no pause in the tone the start delay would stay (JitterStartDelayTests).
            let run = runPlayoutClock(
                PlayoutClockScenario(arrivalPhaseMs: phase, seconds: 10, configuration: .withoutStartDelay))
            #expect(run.statistics.concealedSamples == 0)
            #expect(run.statistics.meanDelayMilliseconds <= 40)
            #expect(run.targetMs.last! < 20)
        }
    }
}
