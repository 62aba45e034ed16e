// The load generator's audio ends: a looped input (tone or WAV), encoded once for all calls, and a sink
// that only counts.
import PolyAudio
import PolySession
import Synchronization

/// The input encoded once with the calls' codec settings: every call replays these payloads, so the
/// generator runs no encoder per call.
struct EncodedInput: Sendable {
    /// Each frame's payload, back to back in `bytes`.
    let bytes: [UInt8]
    let ranges: [Range<Int>]

    init(samples: [Int16], codec: CodecSettings, complexity: Int) throws {
        let encoder = try OpusEncoder(
            OpusEncoderSettings(
                sampleRate: codec.sampleRate, channels: codec.channels,
                frameDuration: .milliseconds(Int64(codec.frameMilliseconds)), bitrate: codec.bitrate,
                vbr: codec.variableBitrate, complexity: complexity, inbandFEC: codec.forwardErrorCorrection,
                dtx: codec.discontinuousTransmission))
        let frame = codec.samplesPerFrame * codec.channels
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        var start = 0
        while start + frame <= samples.count {
            let payload = try encoder.encode(Array(samples[start..<start + frame]))
            ranges.append(bytes.count..<bytes.count + payload.count)
            bytes += payload
            start += frame
        }
        self.bytes = bytes
        self.ranges = ranges
    }
}

/// Replays `EncodedInput` in a loop, one payload per tick, without allocating.
final class EncodedLoopSource: EncodedFrameSource {
    let name = "load input (encoded once)"
    let endOfStream = false
    private let input: EncodedInput
    private let position = Atomic<Int>(0)

    init(input: EncodedInput, offset: Int) {
        self.input = input
        position.store(offset % input.ranges.count, ordering: .relaxed)
    }

    func withNextPayload(_ body: (UnsafeRawBufferPointer) -> Void) {
        let index = position.load(ordering: .relaxed)
        position.store(index + 1 == input.ranges.count ? 0 : index + 1, ordering: .relaxed)
        let range = input.ranges[index]
        input.bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// Not used: the transport takes the payloads.
    func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Int {
        frame.update(repeating: 0)
        return frame.count
    }

    func close() {}
}

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
    var keeps: Bool { kept != nil }

    func write(_ frame: UnsafeBufferPointer<Int16>) {
        var peak: Int32 = 0
        for sample in frame { peak = max(peak, abs(Int32(sample))) }
        frames.add(1, ordering: .relaxed)
        if peak > 520 { audible.add(1, ordering: .relaxed) }
        kept?.withLock { $0.append(contentsOf: frame) }
    }

    func close() {}
}
