// The audio clock's lag behind real time (`CallAudioCounters.clockLagSamples`), in virtual time: what a
// load test reads to tell a CPU-starved call from a measured one.
import PolyCore
import Testing

@testable import PolyVoice

@Suite struct CallAudioClockLagTests {
    /// Plays `frames` 20 ms frames, the k-th at `start + 20 ms × k + delay(k)`.
    private func play(
        _ meters: CallAudioMeters, frames: Range<Int>, from start: Instant, delay: (Int) -> Duration = { _ in .zero }
    ) {
        for k in frames { meters.recordPlayed(samples: 960, at: start + .milliseconds(20 * k) + delay(k)) }
    }

    @Test func framesOnTimeHaveNoLagAndSetUpBeforeTheFirstInputDoesNotCount() {
        let meters = CallAudioMeters()
        let start = Instant(nanoseconds: 5_000_000_000)
        // Before the first input frame: a 300 ms stall (DTLS on the loop) is not the conversation's clock.
        play(meters, frames: 0..<10, from: start) { $0 >= 5 ? .milliseconds(300) : .zero }
        meters.recordInputSent()
        play(meters, frames: 10..<200, from: start + .milliseconds(300))
        #expect(meters.counters.clockLagSamples == 0)
    }

    @Test func aStallThatIsCaughtUpCountsAtItsWorst() {
        let meters = CallAudioMeters()
        let start = Instant(nanoseconds: 1_000_000_000)
        meters.recordInputSent()
        // Frames 50…54 come 120, 100, 80, 60, 40 ms late (the clock catching up 2 ms apart), then on time.
        play(meters, frames: 0..<100, from: start) { k in
            (50..<55).contains(k) ? .milliseconds(120 - 20 * (k - 50)) : .zero
        }
        #expect(meters.counters.clockLagSamples == 120 * 48)
    }

    @Test func skippedTicksLeaveTheClockBehindForGood() {
        let meters = CallAudioMeters()
        let start = Instant(nanoseconds: 1_000_000_000)
        meters.recordInputSent()
        // After frame 30 the clock restarts 500 ms later (a stall it does not catch up): every later frame
        // is 500 ms behind, and the lag says so at the end.
        play(meters, frames: 0..<30, from: start)
        play(meters, frames: 30..<80, from: start + .milliseconds(500))
        #expect(meters.counters.clockLagSamples == 500 * 48)
    }
}
