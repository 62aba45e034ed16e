// What the media session's pacing thread pulls microphone audio from and pushes playout audio to.

/// The format between sources/sinks and the media pipeline: 48 kHz mono Int16 in 20 ms frames.
public enum AudioFrameFormat {
    /// Samples per second.
    public static let sampleRate = 48000
    /// Samples in one 20 ms frame.
    public static let samplesPerFrame = 960
}

/// Where the call's outgoing audio comes from (microphone, file, app buffer, silence).
///
/// `read` is called from one pacing thread every 20 ms; it never blocks on I/O and never allocates.
public protocol AudioFrameSource: AnyObject, Sendable {
    /// Fills all of `buffer` (normally `AudioFrameFormat.samplesPerFrame` samples, 48 kHz mono) and
    /// returns how many samples at its start are real audio; the rest is silence (nothing captured
    /// yet, or the source has ended).
    func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int
    /// The source has ended for good (a finite file or a finished app stream, fully read).
    var endOfStream: Bool { get }
    /// What the source is, for `AudioState` ("file a.wav", a device name, "app buffer", "null").
    var name: String { get }
    /// Releases what the source holds (device, task). Further reads return silence.
    func close()
}

/// Where the call's incoming audio goes (speaker, file, app buffer, nowhere).
///
/// `write` is called from one pacing thread every 20 ms; it never blocks on I/O and never allocates.
public protocol AudioFrameSink: AnyObject, Sendable {
    /// Takes 48 kHz mono samples (normally one 20 ms frame).
    func write(_ samples: UnsafeBufferPointer<Int16>)
    /// What the sink is, for `AudioState`.
    var name: String { get }
    /// Finishes the output (WAV header, app stream end, device closed).
    func close()
}

extension UnsafeMutableBufferPointer where Element == Int16 {
    /// Zeroes the samples from `index` to the end (the silent tail of a short read).
    func silence(from index: Int) {
        guard index < count, let base = baseAddress else { return }
        (base + index).update(repeating: 0, count: count - index)
    }
}
