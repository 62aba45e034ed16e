// Late subscribers get the latest value; all subscribers end on a terminal value.
import Testing

@testable import PolyVoice

@Suite("Replaying stream")
struct ReplayingStreamTests {
    @Test("A late subscriber first receives the latest value, then later ones")
    func replaysLatest() async {
        let states = ReplayingStream<CallState>(initial: .idle, isTerminal: \.isTerminal)
        states.yield(.connecting)
        states.yield(.connected)
        var iterator = states.stream().makeAsyncIterator()
        #expect(await iterator.next() == .connected)
        states.yield(.reconnecting(attempt: 1))
        #expect(await iterator.next() == .reconnecting(attempt: 1))
    }

    @Test("Many subscribers see every value in order and end after the terminal value")
    func manySubscribers() async {
        let states = ReplayingStream<CallState>(initial: .idle, isTerminal: \.isTerminal)
        let streams = (0..<5).map { _ in states.stream() }
        let sequence: [CallState] = [.connecting, .connected, .reconnecting(attempt: 1), .connected, .ended]
        for state in sequence { states.yield(state) }
        states.yield(.connected)  // after the end: ignored
        for stream in streams {
            var seen: [CallState] = []
            for await state in stream { seen.append(state) }
            #expect(seen == [.idle] + sequence)
        }
        #expect(states.isFinished)
        var late: [CallState] = []
        for await state in states.stream() { late.append(state) }
        #expect(late == [.ended])
    }

    @Test("Concurrent producers and subscribers: every subscriber ends, with the last value last")
    func concurrent() async {
        let values = ReplayingStream<Int>()
        await withTaskGroup(of: [Int].self) { group in
            for _ in 0..<8 {
                let stream = values.stream()
                group.addTask {
                    var seen: [Int] = []
                    for await value in stream { seen.append(value) }
                    return seen
                }
            }
            for value in 0..<1000 { values.yield(value) }
            values.finish()
            for await seen in group {
                #expect(seen == Array(0..<1000))
            }
        }
    }

    @Test("A cancelled subscriber is removed without disturbing the others")
    func cancellation() async {
        let values = ReplayingStream<Int>(initial: 0)
        let task = Task {
            for await _ in values.stream() {}
        }
        task.cancel()
        await task.value
        let stream = values.stream()
        values.yield(1)
        values.finish()
        var seen: [Int] = []
        for await value in stream { seen.append(value) }
        #expect(seen == [0, 1])
    }
}
