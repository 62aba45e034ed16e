// An app's AsyncStream of PCM as the call's input (bots): resampled on the async side, handed to the
// pacing thread through a lock-free ring, so neither side waits for the other.
/// Reads the app's `AsyncStream<[Int16]>` of mono PCM at `sampleRate` as 48 kHz frames.
///
/// A task consumes the stream, resamples to 48 kHz and fills a ring of `bufferDuration`; when the
/// ring is full the task waits, so an app that produces faster than real time is paced by the call.
/// A frame that the app has not supplied in time is sent as silence.
public final class BufferSource: AudioFrameSource, @unchecked Sendable {
    public let name = "app buffer"
    private let ring: SPSCRingBuffer<Int16>
    private let producerFinished = AtomicFlag()
    private let closed = AtomicFlag()
    private var task: Task<Void, Never>?

    /// - Parameters:
    ///   - stream: chunks of mono samples of any size at `sampleRate`.
    ///   - bufferDuration: how much audio may wait between the app and the call (default 500 ms).
    public init(stream: AsyncStream<[Int16]>, sampleRate: Int, bufferDuration: Duration = .milliseconds(500))
        throws(ResamplerError)
    {
        let resampler = sampleRate == AudioFrameFormat.sampleRate ? nil : try Resampler(from: sampleRate, to: 48000)
        let milliseconds =
            Int(bufferDuration.components.seconds) * 1000
            + Int(bufferDuration.components.attoseconds / 1_000_000_000_000_000)
        let ring = SPSCRingBuffer<Int16>(capacity: max(AudioFrameFormat.samplesPerFrame, milliseconds * 48))
        self.ring = ring
        task = Task { [producerFinished, closed] in
            for await chunk in stream {
                guard !closed.isRaised else { break }
                await Self.push(resampler?.process(chunk) ?? chunk, into: ring, until: closed)
            }
            if let tail = resampler?.flush() { await Self.push(tail, into: ring, until: closed) }
            producerFinished.raise()
        }
    }

    deinit { task?.cancel() }

    /// Writes all of `samples`, waiting (5 ms steps) while the ring is full.
    private static func push(_ samples: [Int16], into ring: SPSCRingBuffer<Int16>, until closed: AtomicFlag) async {
        var offset = 0
        while offset < samples.count && !closed.isRaised {
            offset += samples.withUnsafeBufferPointer { ring.write(UnsafeBufferPointer(rebasing: $0[offset...])) }
            if offset < samples.count { try? await Task.sleep(for: .milliseconds(5)) }
        }
    }

    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        let got = closed.isRaised ? 0 : ring.read(into: buffer)
        buffer.silence(from: got)
        return got
    }

    public var endOfStream: Bool {
        closed.isRaised || (producerFinished.isRaised && ring.availableToRead == 0)
    }

    public func close() {
        closed.raise()
        task?.cancel()
    }
}
