// OutputQueue hands out what was appended in order, across reads interleaved with appends, and
// Optional<Instant>.formEarliest keeps the earliest of deadlines that may be absent.
import PolyCore
import Testing

@Suite struct OutputQueueTests {
    @Test func outputsComeOutInTheOrderTheyWereQueuedAcrossInterleavedReads() {
        var queue = OutputQueue<Int>()
        #expect(queue.isEmpty)
        #expect(queue.next() == nil)
        queue.append(1)
        queue.append(2)
        #expect(!queue.isEmpty)
        #expect(queue.next() == 1)
        queue.append(3)  // appended while one output is still unread
        #expect(queue.next() == 2)
        #expect(queue.next() == 3)
        #expect(queue.isEmpty)
        #expect(queue.next() == nil)  // everything read: the queue starts over
        queue.append(4)
        #expect(queue.next() == 4)
        #expect(queue.next() == nil)
    }

    @Test func theEarliestDeadlineIgnoresAbsentOnes() {
        var earliest: Instant?
        earliest.formEarliest(nil)
        #expect(earliest == nil)
        earliest.formEarliest(.milliseconds(30))
        earliest.formEarliest(nil)
        earliest.formEarliest(.milliseconds(50))
        #expect(earliest == .milliseconds(30))
        earliest.formEarliest(.milliseconds(10))
        #expect(earliest == .milliseconds(10))
    }
}
