// The real-time PortAudio callbacks: they touch only the SPSC ring, a preallocated scratch buffer and
// atomic counters — no locks, allocation, logging or Swift reference counting.
import CPortAudio

/// What a callback needs, reached through PortAudio's `userData` pointer.
final class CallbackContext: @unchecked Sendable {
    /// Mono samples at the device rate: filled by capture, drained by playback.
    let ring: SPSCRingBuffer<Int16>
    let channels: Int
    let counters: DeviceCounters
    /// Stereo (de)interleaving room, so the callback never allocates.
    let scratch: UnsafeMutableBufferPointer<Int16>
    /// Playback: audio has arrived at least once (before that, silence is not an underrun).
    let primed = AtomicFlag()
    /// PortAudio reported the stream finished (stopped by itself, e.g. the device went away).
    let finished = AtomicFlag()

    init(ring: SPSCRingBuffer<Int16>, channels: Int, counters: DeviceCounters) {
        self.ring = ring
        self.channels = channels
        self.counters = counters
        scratch = .allocate(capacity: 2048)
    }

    deinit { scratch.deallocate() }
}

private let continueStream = Int32(paContinue.rawValue)

/// Capture: mono straight into the ring; stereo averaged through the scratch buffer.
func captureCallback(
    _ input: UnsafeRawPointer?, _ output: UnsafeMutableRawPointer?, _ frameCount: UInt,
    _ timeInfo: UnsafePointer<PaStreamCallbackTimeInfo>?, _ flags: PaStreamCallbackFlags,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let userData else { return continueStream }
    Unmanaged<CallbackContext>.fromOpaque(userData)._withUnsafeGuaranteedRef { context in
        let frames = Int(frameCount)
        context.counters.callbacks.add(1, ordering: .relaxed)
        guard let input else { return }
        let samples = input.assumingMemoryBound(to: Int16.self)
        var written = 0
        if context.channels == 1 {
            written = context.ring.write(UnsafeBufferPointer(start: samples, count: frames))
        } else {
            var done = 0
            while done < frames {
                let count = min(context.scratch.count, frames - done)
                for index in 0..<count {
                    let pair = (done + index) * context.channels
                    context.scratch[index] = Int16((Int32(samples[pair]) + Int32(samples[pair + 1])) / 2)
                }
                written += context.ring.write(UnsafeBufferPointer(rebasing: context.scratch[..<count]))
                done += count
            }
        }
        context.counters.samples.add(frames, ordering: .relaxed)
        if written < frames { context.counters.overruns.add(frames - written, ordering: .relaxed) }
    }
    return continueStream
}

/// Playback: the ring into the output (mono, or duplicated to stereo); silence for what is missing.
func playbackCallback(
    _ input: UnsafeRawPointer?, _ output: UnsafeMutableRawPointer?, _ frameCount: UInt,
    _ timeInfo: UnsafePointer<PaStreamCallbackTimeInfo>?, _ flags: PaStreamCallbackFlags,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let userData, let output else { return continueStream }
    Unmanaged<CallbackContext>.fromOpaque(userData)._withUnsafeGuaranteedRef { context in
        let frames = Int(frameCount)
        context.counters.callbacks.add(1, ordering: .relaxed)
        let samples = output.assumingMemoryBound(to: Int16.self)
        var got = 0
        if context.channels == 1 {
            got = context.ring.read(into: UnsafeMutableBufferPointer(start: samples, count: frames))
            (samples + got).update(repeating: 0, count: frames - got)
        } else {
            var done = 0
            while done < frames {
                let count = min(context.scratch.count, frames - done)
                let read = context.ring.read(into: UnsafeMutableBufferPointer(rebasing: context.scratch[..<count]))
                for index in 0..<count {
                    let value = index < read ? context.scratch[index] : 0
                    for channel in 0..<context.channels { samples[(done + index) * context.channels + channel] = value }
                }
                got += read
                done += count
            }
        }
        if got > 0 { context.primed.raise() }
        context.counters.samples.add(got, ordering: .relaxed)
        if got < frames && context.primed.isRaised { context.counters.underruns.add(1, ordering: .relaxed) }
    }
    return continueStream
}

/// PortAudio calls this when the stream stops, including by itself after a device error.
func finishedCallback(_ userData: UnsafeMutableRawPointer?) {
    guard let userData else { return }
    Unmanaged<CallbackContext>.fromOpaque(userData)._withUnsafeGuaranteedRef { $0.finished.raise() }
}
