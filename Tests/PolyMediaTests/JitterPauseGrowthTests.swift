// Virtual-time tests of where the jitter buffer puts its delay after the target rose: a pause is expanded up to the
// target, speech only up to the band's low edge; and the delay that sits near the target is not taken back for a
// small fall of the target.
import PolyCore
import Testing

@testable import PolyMedia

@Suite struct JitterPauseGrowthTests {
    /// Packets every 20 ms for `seconds` with the packets in `quiet` quiet. By default the one-way delay is 30 ms for
    /// the first second, then 100 ms (a step the late-loss floor follows, so the target rises to about 100 ms).
    private func packets(
        seconds: Int, quiet: Range<Int>, delay: (Int) -> Double = { $0 < 50 ? 30 : 100 }
    ) -> [TracePacket] {
        var random = SeededRandom(seed: 5)
        return (0..<(seconds * 50)).map { k in
            TracePacket(
                index: k, arrivalMs: Double(k) * 20 + delay(k) + random.unit() * 4,
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
        // A pause from 1.5 s on, and 2.0–2.2 s a queue that delays packets 80 ms more (late one after another, so
        // not an isolated spike): the late-loss floor rises to about 118 ms and the delay grows to 5 ms short of it.
        // Held 8 s after its last raise (to about 10.2 s), the floor then falls; the spread asks for far less, so the
        // target falls with it. Once it has fallen about 9.5 ms the delay is 5–10 ms above the target, and is kept
        // rather than compressed (10 ms above, half a block of the pause would be dropped).
        let holdEndsMs = 2_200 + Int(LateLossMonitor.holdMilliseconds)  // the queue's last late packet, then the hold
        let durationMs = holdEndsMs + Int(9.5 / LateLossMonitor.decayPerSecond * 1000)
        let seconds = durationMs / 1000 + 1
        let queued = packets(seconds: seconds, quiet: 75..<(seconds * 50)) { (100..<110).contains($0) ? 110 : 30 }
        var above = -Double.infinity
        let run = runTrace(queued, durationMs: durationMs) { pull, buffer in
            guard pull >= 300 else { return }
            above = max(above, buffer.targetParts.playoutDelayMs - buffer.targetDelay.inMilliseconds)
        }
        #expect(above > 5)
        #expect(!run.operations[300...].contains(.accelerate))
    }
}
