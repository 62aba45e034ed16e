// Virtual-time tests of where the jitter buffer puts its delay after the target rose: a pause is expanded up to the
// target, speech only up to the band's low edge; and the delay that sits near the target is not taken back for a
// small fall of the target.
import PolyCore
import Testing

@testable import PolyMedia

@Suite struct JitterPauseGrowthTests {
    /// Packets every 20 ms for `seconds`: one-way delay 30 ms for the first second, then 100 ms (a step the late-loss
    /// floor follows, so the target rises to about 100 ms), with the packets in `quiet` quiet.
    private func packets(seconds: Int, quiet: Range<Int>) -> [TracePacket] {
        var random = SeededRandom(seed: 5)
        return (0..<(seconds * 50)).map { k in
            TracePacket(
                index: k, arrivalMs: Double(k) * 20 + (k < 50 ? 30 : 100) + random.unit() * 4,
                payload: FakeDecoder.payload(index: k, quiet: quiet.contains(k)))
        }
    }

    /// The playout delay and the target (ms) at pull `at` of a run of `packets`, and the operations of every pull.
    private func delayAndTarget(_ packets: [TracePacket], at: Int, durationMs: Int) -> (
        delay: Double, target: Double, operations: [PlayoutOperation]
    ) {
        var seen = (0.0, 0.0)
        let run = runTrace(packets, durationMs: durationMs) { pull, buffer in
            if pull == at { seen = (buffer.targetParts.playoutDelayMs, buffer.targetDelay.inMilliseconds) }
        }
        return (seen.0, seen.1, run.operations)
    }

    @Test func aPauseAfterTheTargetRoseIsExpandedToTheTargetSpeechOnlyToTheBandsLowEdge() {
        // Packets 75..<125 (1.5–2.5 s of media) are a pause; it plays from about 1.6 s. At 2.6 s it is over.
        let paused = delayAndTarget(packets(seconds: 4, quiet: 75..<125), at: 260, durationMs: 4_000)
        let spoken = delayAndTarget(packets(seconds: 4, quiet: 0..<0), at: 260, durationMs: 4_000)
        #expect(spoken.target > 90)
        #expect(abs(paused.target - spoken.target) < 5)
        // Speech grew to the low edge (20 ms below the target) and stopped; the pause went on to 5 ms short of it.
        #expect(spoken.delay < spoken.target - 12)
        #expect(paused.delay >= paused.target - 7)
        #expect(paused.operations[160..<260].contains(.preemptiveExpand))
    }

    @Test func aDelayLessThanTenMillisecondsAboveTheTargetIsKeptThroughAPause() {
        // A pause from 1.5 s on: the delay grows to 5 ms short of the target (the late-loss floor); the floor, held
        // 8 s after its last raise, then falls 10 ms a second to the target the spread asks for, about 9 ms lower.
        // The delay, now above the target by less than 10 ms, is kept rather than compressed.
        var above = -Double.infinity
        let run = runTrace(packets(seconds: 11, quiet: 75..<550), durationMs: 10_800) { pull, buffer in
            guard pull >= 300 else { return }
            above = max(above, buffer.targetParts.playoutDelayMs - buffer.targetDelay.inMilliseconds)
        }
        #expect(above > 5)
        #expect(!run.operations[300...].contains(.accelerate))
    }
}
