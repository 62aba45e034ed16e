import Foundation
import PolyCore
import Synchronization
import Testing

@testable import PolyNet

/// Counts ticks and where they ran.
private final class TickCounter: FrameClockListener {
    let loop: EventLoop
    let ticks = Mutex<[Instant]>([])
    let offLoop = Atomic<Int>(0)
    init(loop: EventLoop) { self.loop = loop }
    func frameTick(at now: Instant) {
        if !loop.isOnLoopThread { offLoop.add(1, ordering: .relaxed) }
        ticks.withLock { $0.append(now) }
    }
    var count: Int { ticks.withLock { $0.count } }
}

@Suite struct EventLoopFrameClockTests {
    @Test func oneClockTicksEveryListenerAtTheSameInstantsEvery20Milliseconds() throws {
        let loop = try EventLoop()
        defer { loop.shutdown() }
        let a = TickCounter(loop: loop)
        let b = TickCounter(loop: loop)
        let first = loop.addFrameListener(a)
        _ = loop.addFrameListener(b)
        #expect(first != loop.addFrameListener(TickCounter(loop: loop)))  // dropped at once: held weakly
        #expect(waitUntil { a.count >= 10 && b.count >= 10 })
        loop.removeFrameListener(first)
        let stoppedAt = a.count
        Thread.sleep(forTimeInterval: 0.1)
        #expect(a.count <= stoppedAt + 1)  // a tick already queued may still run
        #expect(b.count >= 14)
        let ticksA = a.ticks.withLock { $0 }
        let ticksB = b.ticks.withLock { $0 }
        // The same tick reached both listeners (one timer for all of them).
        #expect(Array(ticksB.prefix(ticksA.count - 1)) == Array(ticksA.prefix(ticksA.count - 1)))
        #expect(a.offLoop.load(ordering: .relaxed) == 0 && b.offLoop.load(ordering: .relaxed) == 0)
        // 20 ms pace on average (single gaps vary with the machine's load).
        let span = (ticksB[ticksB.count - 1] - ticksB[0]).inSeconds
        let perTick = span / Double(ticksB.count - 1)
        #expect(perTick > 0.015 && perTick < 0.05, "mean tick interval \(perTick) s")
    }

    @Test func groupHandsOutItsLoopsRoundRobin() throws {
        let group = try EventLoopGroup(count: 3, name: "test")
        defer { for loop in group.loops { loop.shutdown() } }
        let handed = (0..<7).map { _ in group.next() }
        #expect(group.loops.count == 3)
        #expect(handed.map { ObjectIdentifier($0) } == [0, 1, 2, 0, 1, 2, 0].map { ObjectIdentifier(group.loops[$0]) })
        #expect(Set(group.loops.map { ObjectIdentifier($0) }).count == 3)
    }
}
