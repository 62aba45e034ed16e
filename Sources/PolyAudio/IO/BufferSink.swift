// The call's output as an app's AsyncStream of PCM (bots): the pacing thread only writes a lock-free
// ring; a task drains it, resamples and yields frames to the app's continuation.
import Synchronization

/// Delivers the call's audio to the app's `AsyncStream<[Int16]>.Continuation` as mono PCM at
/// `sampleRate`, in 20 ms chunks. `close` yields what is left and finishes the continuation.
public final class BufferSink: AudioFrameSink, @unchecked Sendable {
    public let name = "app buffer"
    private let ring = SPSCRingBuffer<Int16>(capacity: 48000)
    private let closed = AtomicFlag()
    /// Samples lost because the drain task fell a whole second behind.
    private let dropped = Atomic<Int>(0)
    private var task: Task<Void, Never>?

    /// - Parameters:
    ///   - continuation: receives chunks of `sampleRate / 50` samples (the last one may be shorter).
    ///   - pollInterval: how often the task drains the ring (default 10 ms).
    public init(
        continuation: AsyncStream<[Int16]>.Continuation, sampleRate: Int, pollInterval: Duration = .milliseconds(10)
    ) throws(ResamplerError) {
        let resampler = sampleRate == AudioFrameFormat.sampleRate ? nil : try Resampler(from: 48000, to: sampleRate)
        let chunk = max(1, sampleRate / 50)
        task = Task { [ring, closed] in
            var scratch = [Int16](repeating: 0, count: ring.capacity)
            var pending: [Int16] = []
            while true {
                let finishing = closed.isRaised
                let got = scratch.withUnsafeMutableBufferPointer { ring.read(into: $0) }
                if got > 0 {
                    let block = Array(scratch.prefix(got))
                    pending += resampler?.process(block) ?? block
                }
                if finishing, let resampler { pending += resampler.flush() }
                while pending.count >= chunk || (finishing && !pending.isEmpty) {
                    let size = min(chunk, pending.count)
                    continuation.yield(Array(pending.prefix(size)))
                    pending.removeFirst(size)
                }
                if finishing { break }
                try? await Task.sleep(for: pollInterval)
            }
            continuation.finish()
        }
    }

    /// Samples dropped because the app side could not keep up (the ring holds one second).
    public var droppedSamples: Int { dropped.load(ordering: .relaxed) }

    public func write(_ samples: UnsafeBufferPointer<Int16>) {
        guard !closed.isRaised else { return }
        let written = ring.write(samples)
        if written < samples.count { dropped.add(samples.count - written, ordering: .relaxed) }
    }

    /// Yields what is still buffered, then finishes the continuation. Idempotent.
    public func close() { closed.raise() }

    /// Waits until `close` has delivered everything and finished the continuation.
    public func closeAndWait() async {
        close()
        await task?.value
    }
}
