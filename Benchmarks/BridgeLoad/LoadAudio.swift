// The load generator's audio ends: a looped input (tone or WAV) and a sink that only counts.
import PolyAudio
import Synchronization

/// Plays `samples` in a loop, one frame per tick, without allocating.
final class LoopingSource: AudioFrameSource {
    let name = "load tone"
    let endOfStream = false
    private let samples: [Int16]
    private let position = Atomic<Int>(0)

    init(samples: [Int16], offset: Int) {
        self.samples = samples
        position.store(offset % samples.count, ordering: .relaxed)
    }

    func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Int {
        var index = position.load(ordering: .relaxed)
        samples.withUnsafeBufferPointer { source in
            for slot in 0..<frame.count {
                frame[slot] = source[index]
                index = index + 1 == source.count ? 0 : index + 1
            }
        }
        position.store(index, ordering: .relaxed)
        return frame.count
    }

    func close() {}
}

/// Counts playout frames and those that carry audio (peak above -36 dBFS, so concealed silence and
/// comfort noise do not count). Optionally keeps the audio (one call per run, for a listening check).
final class CountingSink: AudioFrameSink {
    let name = "load counter"
    private let frames = Atomic<Int>(0)
    private let audible = Atomic<Int>(0)
    private let kept: Mutex<[Int16]>?

    init(keep: Bool) { kept = keep ? Mutex([]) : nil }

    var counts: (frames: Int, audible: Int) { (frames.load(ordering: .relaxed), audible.load(ordering: .relaxed)) }
    var samples: [Int16] { kept?.withLock { $0 } ?? [] }

    func write(_ frame: UnsafeBufferPointer<Int16>) {
        var peak: Int32 = 0
        for sample in frame { peak = max(peak, abs(Int32(sample))) }
        frames.add(1, ordering: .relaxed)
        if peak > 520 { audible.add(1, ordering: .relaxed) }
        kept?.withLock { $0.append(contentsOf: frame) }
    }

    func close() {}
}
