// SPSCRingBuffer: wrap-around, full/empty limits, discard, and two threads streaming through it.
import Foundation
import Testing

@testable import PolyAudio

@Suite struct RingBufferTests {
    @Test func writesAndReadsAcrossTheWrap() {
        let ring = SPSCRingBuffer<Int16>(capacity: 5)
        var out = [Int16](repeating: 0, count: 5)
        for round in 0..<7 {
            let values = (0..<3).map { Int16(round * 3 + $0) }
            #expect(values.withUnsafeBufferPointer { ring.write($0) } == 3)
            #expect(ring.availableToRead == 3)
            let got = out.withUnsafeMutableBufferPointer { ring.read(into: $0) }
            #expect(got == 3)
            #expect(Array(out.prefix(3)) == values)
        }
        #expect(ring.availableToRead == 0)
    }

    @Test func writeStopsWhenFullAndReadWhenEmpty() {
        let ring = SPSCRingBuffer<Float>(capacity: 4)
        let values: [Float] = [1, 2, 3, 4, 5, 6]
        #expect(values.withUnsafeBufferPointer { ring.write($0) } == 4)
        #expect(ring.availableToWrite == 0)
        #expect(values.withUnsafeBufferPointer { ring.write($0) } == 0)
        var out = [Float](repeating: 0, count: 6)
        #expect(out.withUnsafeMutableBufferPointer { ring.read(into: $0) } == 4)
        #expect(Array(out.prefix(4)) == [1, 2, 3, 4])
        #expect(out.withUnsafeMutableBufferPointer { ring.read(into: $0) } == 0)
    }

    @Test func discardDropsTheOldestSamples() {
        let ring = SPSCRingBuffer<Int16>(capacity: 8)
        let values: [Int16] = [1, 2, 3, 4, 5]
        values.withUnsafeBufferPointer { _ = ring.write($0) }
        #expect(ring.discard(3) == 3)
        #expect(ring.discard(10) == 2)
        #expect(ring.availableToRead == 0)
        values.withUnsafeBufferPointer { _ = ring.write($0) }
        var out = [Int16](repeating: 0, count: 2)
        out.withUnsafeMutableBufferPointer { _ = ring.read(into: $0) }
        #expect(out == [1, 2])
    }

    /// A producer and a consumer thread stream 100 000 counting samples in uneven chunks through a
    /// small ring: the consumer must see every value exactly once, in order. (Dedicated threads, so the
    /// busy loops never hold the test runner's cooperative threads.)
    @Test func twoThreadsKeepOrderWithoutLoss() async {
        let ring = SPSCRingBuffer<Int16>(capacity: 257)
        let total = 100_000
        let producer = Thread {
            var chunk = [Int16](repeating: 0, count: 97)
            var next = 0
            while next < total {
                let size = min(1 + next % 97, total - next)
                for index in 0..<size { chunk[index] = Int16(truncatingIfNeeded: next + index) }
                var offset = 0
                while offset < size {
                    let written = chunk.withUnsafeBufferPointer {
                        ring.write(UnsafeBufferPointer(rebasing: $0[offset..<size]))
                    }
                    if written == 0 { sched_yield() }  // full: let the consumer run (2-core CI machines)
                    offset += written
                }
                next += size
            }
        }
        let (received, mismatches) = await withCheckedContinuation { done in
            let consumer = Thread {
                var chunk = [Int16](repeating: 0, count: 61)
                var expected = 0
                var mismatches = 0
                while expected < total {
                    let got = chunk.withUnsafeMutableBufferPointer { ring.read(into: $0) }
                    if got == 0 { sched_yield() }  // empty: let the producer run
                    for index in 0..<got where chunk[index] != Int16(truncatingIfNeeded: expected + index) {
                        mismatches += 1
                    }
                    expected += got
                }
                done.resume(returning: (expected, mismatches))
            }
            consumer.start()
            producer.start()
        }
        #expect(mismatches == 0)
        #expect(received == total)
        #expect(ring.availableToRead == 0)
    }
}
