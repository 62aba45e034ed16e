// Timing of the Swift and C sides of one comparison: interleaved rounds, per-thread CPU time,
// allocation counts, and the median of the per-round speed ratios.
import CSRTPBench
import Glibc

/// CPU time of the calling thread: the machine is shared, so wall time would count other processes.
func threadCPUNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

/// One side's figures over all measured rounds.
struct SideFigures {
    /// ns per packet of each round.
    var roundNanoseconds: [Double] = []
    /// Heap allocation calls made during the measured rounds (whole process) and the packets they covered.
    var allocations: UInt64 = 0
    var packets = 0
    var checksum: Int64 = 0

    var medianNanoseconds: Double { median(roundNanoseconds) }
    var allocationsPerPacket: Double { Double(allocations) / Double(max(packets, 1)) }
}

/// The result of `compare`: both sides and the per-round ratios C time / Swift time.
struct Comparison {
    var swift = SideFigures()
    var c = SideFigures()
    var ratios: [Double] = []

    /// Median of the per-round ratios: a round whose two halves ran under the same load counts once,
    /// so a burst of load in some rounds moves it little.
    var medianRatio: Double { median(ratios) }
}

func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// Runs the Swift and C bodies (each processes the given number of packets and returns a checksum)
/// in `rounds` interleaved rounds, alternating which side goes first so a change of load hits both
/// alike, after one warm-up round each.
@MainActor func compare(
    packetsPerRound: Int, rounds: Int, swift: @MainActor (Int) -> Int64, c: @MainActor (Int) -> Int64
) -> Comparison {
    var result = Comparison()
    _ = swift(packetsPerRound)  // warm-up: caches, branch predictors, first SSRC seen by libsrtp
    _ = c(packetsPerRound)
    func run(_ body: @MainActor (Int) -> Int64, into side: inout SideFigures) -> Double {
        let allocationsBefore = csb_allocation_count()
        let start = threadCPUNanoseconds()
        side.checksum = body(packetsPerRound)
        let elapsed = threadCPUNanoseconds() - start
        side.allocations += csb_allocation_count() - allocationsBefore
        side.packets += packetsPerRound
        let perPacket = Double(elapsed) / Double(packetsPerRound)
        side.roundNanoseconds.append(perPacket)
        return perPacket
    }
    for round in 0..<rounds {
        let swiftTime: Double
        let cTime: Double
        if round % 2 == 0 {
            swiftTime = run(swift, into: &result.swift)
            cTime = run(c, into: &result.c)
        } else {
            cTime = run(c, into: &result.c)
            swiftTime = run(swift, into: &result.swift)
        }
        result.ratios.append(cTime / swiftTime)
    }
    return result
}

/// Checks that the allocation counter sees allocations made by Swift code (through the Swift
/// runtime's allocator), so a 0 printed for the Swift path is a real count.
func allocationCounterSeesSwift() -> Bool {
    let before = csb_allocation_count()
    let memory = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 8)
    let after = csb_allocation_count()
    memory.deallocate()
    return after > before
}
