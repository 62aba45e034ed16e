// A virtual-time model of how a call's shell drives the jitter buffer: packets sent by a far end's 20 ms clock,
// a local 20 ms frame clock whose ticks come late under CPU load (and catch up, EventLoop's rule: a late tick's
// successor comes no sooner than 2 ms after it), two 10 ms pulls per tick at the tick's time.
import PolyCore
import PolyMedia

/// The scheduling of one run: where arrivals fall against the local tick, and how late each side's clock runs.
struct PlayoutClockScenario {
    /// Arrival of packet k (before any lateness) is at `k * 20 + arrivalPhaseMs`; local ticks are ideally at
    /// `n * 20` (both clocks are exact 20 ms clocks on one machine, so the phase stays put).
    var arrivalPhaseMs: Double
    /// Lateness of the far end's send tick for each packet, ms.
    var sendLateMs: (inout SeededRandom) -> Double = { _ in 0 }
    /// Lateness of each local tick beyond its ideal time (or 2 ms after the previous tick, when catching up), ms.
    var tickLateMs: (inout SeededRandom) -> Double = { _ in 0 }
    var seconds = 25
    var seed: UInt64 = 1
    var configuration = JitterBufferConfiguration()
}

/// What the run played, per tick and in total.
struct PlayoutClockRun {
    var statistics = JitterBufferStatistics()
    /// Concealed samples per second of playout.
    var concealedPerSecond: [UInt64] = []
    var targetMs: [Double] = []
    /// The part of the target kept from waits for late packets, per tick.
    var headroomMs: [Double] = []
    var tickTimesMs: [Double] = []

    var concealedShare: Double {
        statistics.totalSamplesReceived == 0
            ? 0 : Double(statistics.concealedSamples) / Double(statistics.totalSamplesReceived)
    }
}

/// Runs `scenario` with the fake decoder; arrivals due at or before a tick are inserted before it pulls.
func runPlayoutClock(_ scenario: PlayoutClockScenario) -> PlayoutClockRun {
    var random = SeededRandom(seed: scenario.seed)
    var buffer = JitterBuffer(decoder: FakeDecoder(), configuration: scenario.configuration)
    let packetCount = scenario.seconds * 50 + 10
    var arrivals: [(ms: Double, index: Int)] = (0..<packetCount).map { k in
        (Double(k) * 20 + scenario.arrivalPhaseMs + max(0, scenario.sendLateMs(&random)), k)
    }
    arrivals.sort { ($0.ms, $0.index) < ($1.ms, $1.index) }
    var run = PlayoutClockRun()
    var nextArrival = 0
    var previousTick = -Double.infinity
    var lastSecondConcealed: UInt64 = 0
    let frame = scenario.configuration.frameSamples
    var output = [Int16](repeating: 0, count: frame)
    let ticks = scenario.seconds * 50
    for n in 1...ticks {
        let ideal = Double(n) * 20
        let tick = max(ideal, previousTick + 2) + max(0, scenario.tickLateMs(&random))
        previousTick = tick
        while nextArrival < arrivals.count, arrivals[nextArrival].ms <= tick {
            let (ms, k) = arrivals[nextArrival]
            let arrival = Instant(nanoseconds: Int64(ms * 1e6))
            let packet = JitterPacket(
                sequence: UInt16(truncatingIfNeeded: k), timestamp: UInt32(truncatingIfNeeded: k * 960), ssrc: 1,
                marker: false, payload: FakeDecoder.payload(index: k), arrival: arrival)
            buffer.insert(packet, at: arrival)
            nextArrival += 1
        }
        let now = Instant(nanoseconds: Int64(tick * 1e6))
        for _ in 0..<(960 / frame) {
            output.withUnsafeMutableBufferPointer { _ = buffer.pull(at: now, into: $0) }
        }
        run.tickTimesMs.append(tick)
        run.targetMs.append(buffer.targetDelay.inMilliseconds)
        run.headroomMs.append(buffer.targetParts.headroomMs)
        if n % 50 == 0 {
            run.concealedPerSecond.append(buffer.statistics.concealedSamples - lastSecondConcealed)
            lastSecondConcealed = buffer.statistics.concealedSamples
        }
    }
    run.statistics = buffer.statistics
    return run
}
