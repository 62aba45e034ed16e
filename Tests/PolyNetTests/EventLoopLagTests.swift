import Foundation
import PolyCore
import Synchronization
import Testing

@testable import PolyNet

/// Blocks its loop once, inside one tick, for a set time (a busy call on the loop).
private final class StallingListener: FrameClockListener {
    let stall: Duration
    let ticks = Atomic<Int>(0)
    init(stall: Duration) { self.stall = stall }
    func frameTick(at now: Instant) {
        if ticks.add(1, ordering: .relaxed).newValue == 5 { Thread.sleep(forTimeInterval: stall.inSeconds) }
    }
}

@Suite struct EventLoopLagTests {
    @Test func recorderBucketsLatenessAndIntervalsAreDifferences() {
        let recorder = EventLoopLagRecorder()
        for ms in [0.5, 0.5, 3, 30, 250] { recorder.record(latenessNanoseconds: Int64(ms * 1e6)) }
        recorder.record(latenessNanoseconds: -1_000)  // early counts as on time
        let first = recorder.snapshot()
        #expect(first.count == 6)
        #expect(first.bucketCounts == [3, 0, 1, 0, 0, 1, 0, 0, 1])
        #expect(abs(first.sumSeconds - 0.284) < 1e-9)
        #expect(first.maxSeconds == 0.25)
        #expect(first.quantileUpperBound(0.5) == 0.001)
        #expect(first.quantileUpperBound(0.99) == .infinity)
        recorder.record(latenessNanoseconds: 15_000_000)
        let interval = recorder.snapshot().since(first)
        #expect(interval.count == 1 && interval.bucketCounts == [0, 0, 0, 0, 1, 0, 0, 0, 0])
        #expect(abs(interval.meanSeconds - 0.015) < 1e-9)
        var both = interval
        both.add(first)
        #expect(both.count == 7 && both.maxSeconds == 0.25)
    }

    @Test func aTickThatBlocksTheLoopMakesTheNextOneLate() throws {
        let loop = try EventLoop()
        defer { loop.shutdown() }
        let listener = StallingListener(stall: .milliseconds(90))
        _ = loop.addFrameListener(listener)
        #expect(waitUntil { listener.ticks.load(ordering: .relaxed) >= 10 })
        let lag = loop.frameClockLag
        #expect(lag.count >= 9)
        // The tick after the 90 ms stall was about 70 ms late (the stall less one 20 ms period).
        #expect(lag.maxSeconds >= 0.06, "max lateness \(lag.maxSeconds) s")
        #expect(lag.bucketCounts[6...].reduce(0, +) >= 1)
    }
}
