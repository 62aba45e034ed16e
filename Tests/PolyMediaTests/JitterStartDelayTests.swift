// Virtual-time tests of the start delay: a stream's first seconds play at least `startDelay` behind the network,
// which absorbs a delay step the histogram has not yet seen; after the hold, pauses take that delay back.
import PolyCore
import Testing

@testable import PolyMedia

@Suite struct JitterStartDelayTests {
    /// Packets every 20 ms for `seconds`, a one-way delay of 30 ms (`stepMs` more from packet `stepAt` on) with
    /// 2 ms of jitter, and the packets in `quiet` quiet.
    private func packets(seconds: Int, quiet: [Range<Int>] = [], stepMs: Double = 0, stepAt: Int = 0) -> [TracePacket] {
        var random = SeededRandom(seed: 11)
        return (0..<(seconds * 50)).map { k in
            TracePacket(
                index: k, arrivalMs: Double(k) * 20 + 30 + (k >= stepAt ? stepMs : 0) + random.unit() * 2,
                payload: FakeDecoder.payload(index: k, quiet: quiet.contains { $0.contains(k) }))
        }
    }

    private func configuration(startDelayMs: Int64, stretchRatio: Double = 0.25) -> JitterBufferConfiguration {
        var configuration = JitterBufferConfiguration()
        configuration.startDelay = .milliseconds(startDelayMs)
        configuration.maximumStretchRatio = stretchRatio
        return configuration
    }

    @Test func aStreamStartsAtTheStartDelayAndAPauseAfterTheHoldTakesItBack() {
        // Pauses in 1.0–1.6 s and 5.0–5.6 s of media; the hold lapses 4 s after the first packet (30 ms), so the
        // first pause is inside it and the second takes the delay back.
        let trace = packets(seconds: 8, quiet: [50..<80, 250..<280])
        var early: (floor: Double, target: Double, delay: Double)?
        var late: (floor: Double, target: Double, delay: Double)?
        let run = runTrace(trace, durationMs: 8_000, configuration: configuration(startDelayMs: 40)) { pull, buffer in
            let parts = buffer.targetParts
            let seen = (parts.startFloorMs, buffer.targetDelay.inMilliseconds, parts.playoutDelayMs)
            if pull == 200 { early = seen }
            if pull == 700 { late = seen }
        }
        let unfloored = runTrace(trace, durationMs: 8_000, configuration: configuration(startDelayMs: 0)) { pull, b in
            if pull == 200 { #expect(b.targetParts.playoutDelayMs < 30) }
        }
        #expect(early?.floor == 40)
        #expect(early?.target == 40)
        #expect((early?.delay ?? 0) > 32)
        #expect(late?.floor == 0)
        #expect((late?.target ?? 99) < 25)
        // Taken back in the second pause to within 5 ms of the target (plus what one dropped half-block overshoots).
        #expect((late?.delay ?? 99) < (late?.target ?? 0) + 10)
        // Not in speech after the hold (4.0–5.0 s), only in the pause, and once.
        #expect(!run.operations[400..<500].contains(.accelerate))
        #expect(run.operations[500..<580].contains(.accelerate))
        #expect(!run.operations[600...].contains(.accelerate))
        #expect(run.statistics.concealedSamples == 0)
        #expect(unfloored.statistics.removedSamplesForAcceleration < run.statistics.removedSamplesForAcceleration)
    }

    @Test func theStartDelayAbsorbsADelayStepBeforeTheBufferHasSeenIt() {
        // 20 ms more delay from 1 s on (a route change): inside the first seconds' 40 ms, late without it.
        let trace = packets(seconds: 3, stepMs: 20, stepAt: 50)
        let floored = runTrace(trace, durationMs: 3_000, configuration: configuration(startDelayMs: 40))
        let unfloored = runTrace(trace, durationMs: 3_000, configuration: configuration(startDelayMs: 0))
        #expect(floored.statistics.concealedSamples == 0)
        #expect(unfloored.statistics.concealedSamples > 0)
    }

    @Test func withoutTimeStretchingThereIsNoStartFloor() {
        // Nothing could take the floor's delay back, so it would last the whole call.
        let trace = packets(seconds: 2)
        let run = runTrace(trace, durationMs: 2_000, configuration: configuration(startDelayMs: 40, stretchRatio: 0)) {
            pull, buffer in
            if pull == 100 {
                #expect(buffer.targetParts.startFloorMs == 0)
                #expect(buffer.targetDelay.inMilliseconds < 30)
            }
        }
        #expect(run.operations.contains(.normal))
    }

    @Test func theFloorHoldsFromTheFirstPacketNotFromTheStartOfTheBuffer() {
        // The first packet arrives 10 s after the buffer was made (pulls of silence before it).
        var trace = packets(seconds: 13)
        for k in trace.indices { trace[k].arrivalMs! += 10_000 }
        let run = runTrace(trace, durationMs: 13_000, configuration: configuration(startDelayMs: 40)) { pull, buffer in
            if pull == 900 { #expect(buffer.targetParts.startFloorMs == 0) }
            if pull == 1_200 { #expect(buffer.targetParts.startFloorMs == 40) }
        }
        #expect(run.operations[1_100...].contains(.normal))
    }
}
