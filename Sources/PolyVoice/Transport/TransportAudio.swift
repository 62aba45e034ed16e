// The audio ends a MediaTransport's 20 ms clock reads from and writes to.
//
// Minimal protocols owned by this layer until PolyAudio's AudioFrameSource/AudioFrameSink land; an
// adapter from those is one small type each.
import Synchronization

/// Gives one 20 ms frame (960 samples, 48 kHz mono) per clock tick. Called on the event loop thread only.
public protocol TransportAudioSource: AnyObject, Sendable {
    /// Fills `frame` completely (silence when there is nothing to play).
    func read(into frame: UnsafeMutableBufferPointer<Int16>)
}

/// Takes one 20 ms frame of playout per clock tick. Called on the event loop thread only.
public protocol TransportAudioSink: AnyObject, Sendable {
    func write(_ frame: UnsafeBufferPointer<Int16>)
}

/// Plays `samples` once from the first tick on, then silence.
public final class SampleBufferSource: TransportAudioSource {
    private let samples: [Int16]
    private let position = Atomic<Int>(0)

    public init(samples: [Int16]) { self.samples = samples }

    /// Samples handed out so far.
    public var samplesRead: Int { position.load(ordering: .relaxed) }

    public func read(into frame: UnsafeMutableBufferPointer<Int16>) {
        let start = position.load(ordering: .relaxed)
        let count = max(0, min(frame.count, samples.count - start))
        for index in 0..<frame.count { frame[index] = index < count ? samples[start + index] : 0 }
        position.store(start + count, ordering: .relaxed)
    }
}

/// Keeps everything written (for tests and file output); `samples` may be read from any thread.
public final class RecordingSink: TransportAudioSink {
    private let recorded = Mutex<[Int16]>([])

    public init() {}

    public var samples: [Int16] { recorded.withLock { $0 } }

    public func write(_ frame: UnsafeBufferPointer<Int16>) {
        recorded.withLock { $0.append(contentsOf: frame) }
    }
}

/// An echo agent's audio: what is written as playout is read back as the next frame to send.
public final class EchoAudio: TransportAudioSource, TransportAudioSink {
    private let pending = Mutex<[Int16]>([])

    public init() {}

    public func write(_ frame: UnsafeBufferPointer<Int16>) {
        pending.withLock { $0.append(contentsOf: frame) }
    }

    public func read(into frame: UnsafeMutableBufferPointer<Int16>) {
        pending.withLock { buffer in
            let count = min(frame.count, buffer.count)
            for index in 0..<frame.count { frame[index] = index < count ? buffer[index] : 0 }
            buffer.removeFirst(count)
        }
    }
}
