// The playout sample FIFO: order across wrap-free compaction, silence, capacity limits and its tail.
import Testing

@testable import PolyMedia

@Suite struct SampleQueueTests {
    @Test func deliversSamplesInOrderAcrossCompaction() {
        var queue = SampleQueue(capacity: 1000)
        var written: Int16 = 0
        var read: [Int16] = []
        var output = [Int16](repeating: 0, count: 480)
        // Appending 700 and reading 480 each time leaves a tail that must move to the front now and then.
        for _ in 0..<50 {
            let block = (0..<Int16(700)).map { written &+ $0 }
            let appended = block.withUnsafeBufferPointer { queue.append($0) }
            written &+= Int16(appended)
            let n = output.withUnsafeMutableBufferPointer { queue.read(into: $0) }
            read += output[0..<n]
        }
        #expect(read == (0..<read.count).map { Int16(truncatingIfNeeded: $0) })
        #expect(read.count + queue.count == Int(written))
    }

    @Test func appendsOnlyWhatFitsAndSilenceIsZero() {
        var queue = SampleQueue(capacity: 10)
        let ones = [Int16](repeating: 1, count: 8)
        #expect(ones.withUnsafeBufferPointer { queue.append($0) } == 8)
        queue.appendSilence(5)
        #expect(queue.count == 10)
        #expect(ones.withUnsafeBufferPointer { queue.append($0) } == 0)
        var output = [Int16](repeating: 7, count: 12)
        #expect(output.withUnsafeMutableBufferPointer { queue.read(into: $0) } == 10)
        #expect(output == [1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 7, 7])
        #expect(queue.count == 0)
    }

    @Test func copyTailGivesTheNewestSamples() {
        var queue = SampleQueue(capacity: 16)
        let samples: [Int16] = [1, 2, 3, 4, 5, 6]
        samples.withUnsafeBufferPointer { _ = queue.append($0) }
        var output = [Int16](repeating: 0, count: 2)
        output.withUnsafeMutableBufferPointer { _ = queue.read(into: $0) }
        var tail = [Int16](repeating: 0, count: 3)
        tail.withUnsafeMutableBufferPointer { queue.copyTail(3, into: $0) }
        #expect(tail == [4, 5, 6])
    }
}
