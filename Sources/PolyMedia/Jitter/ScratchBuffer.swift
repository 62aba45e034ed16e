// Preallocated sample memory for the playout hot path, usable while the owning struct mutates itself.

/// A fixed block of Int16 samples allocated once; its contents are only meaningful within one call.
final class ScratchBuffer {
    let samples: UnsafeMutableBufferPointer<Int16>

    init(count: Int) {
        samples = .allocate(capacity: count)
        samples.initialize(repeating: 0)
    }

    deinit { samples.deallocate() }

    var count: Int { samples.count }

    /// The first `count` samples.
    func prefix(_ count: Int) -> UnsafeMutableBufferPointer<Int16> {
        UnsafeMutableBufferPointer(rebasing: samples[0..<count])
    }

    func slice(_ range: Range<Int>) -> UnsafeMutableBufferPointer<Int16> {
        UnsafeMutableBufferPointer(rebasing: samples[range])
    }
}
