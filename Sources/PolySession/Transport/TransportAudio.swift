// Small audio ends for the media shell's 20 ms clock: a one-shot sample source, a recording sink, an
// echo agent's loop (what is played out is sent back), and sources of frames encoded ahead of time.
import PolyAudio
import Synchronization

/// Plays `samples` (48 kHz mono) once from the first tick on, then silence.
public final class SampleBufferSource: AudioFrameSource {
    private let samples: [Int16]
    private let position = Atomic<Int>(0)
    public let name = "samples"

    public init(samples: [Int16]) { self.samples = samples }

    public var endOfStream: Bool { position.load(ordering: .relaxed) >= samples.count }

    public func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Int {
        let start = position.load(ordering: .relaxed)
        let count = max(0, min(frame.count, samples.count - start))
        for index in 0..<frame.count { frame[index] = index < count ? samples[start + index] : 0 }
        position.store(start + count, ordering: .relaxed)
        return count
    }

    public func close() {}
}

/// Keeps everything written (tests, diagnostics); `samples` may be read from any thread.
public final class RecordingSink: AudioFrameSink {
    private let recorded = Mutex<[Int16]>([])
    public let name = "recording"

    public init() {}

    /// Everything written so far.
    public var samples: [Int16] { recorded.withLock { $0 } }

    /// How many samples were written so far.
    public var count: Int { recorded.withLock { $0.count } }

    public func write(_ frame: UnsafeBufferPointer<Int16>) {
        recorded.withLock { $0.append(contentsOf: frame) }
    }

    public func close() {}
}

/// An echo agent's audio: what is written as playout is read back as the next frame to send.
public final class EchoAudio: AudioFrameSource, AudioFrameSink {
    private let pending = Mutex<[Int16]>([])
    public let name = "echo"

    public init() {}

    public var endOfStream: Bool { false }

    public func write(_ frame: UnsafeBufferPointer<Int16>) {
        pending.withLock { $0.append(contentsOf: frame) }
    }

    public func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Int {
        pending.withLock { buffer in
            let count = min(frame.count, buffer.count)
            for index in 0..<frame.count { frame[index] = index < count ? buffer[index] : 0 }
            buffer.removeFirst(count)
            return count
        }
    }

    public func close() {}
}

/// A source whose frames are already Opus payloads of the call's codec settings (a file encoded once and
/// replayed, as a load generator does): the transport sends them as they are, skipping the encoder.
/// `read(into:)` is not used by the transport for such a source.
public protocol EncodedFrameSource: AudioFrameSource {
    /// Calls `body` with the next frame's payload (empty: nothing to send this tick). On the loop thread.
    func withNextPayload(_ body: (UnsafeRawBufferPointer) -> Void)
}
