// Where the call's audio comes from and goes to (Linux-specific beyond the mobile SDK).
import FoundationEssentials

/// The microphone side of a call. App and file audio is mono 16-bit PCM.
public enum AudioInput: Sendable {
    /// The system's default capture device.
    case defaultDevice
    /// A capture device whose name contains this text (case-insensitive) or whose id equals it.
    case device(String)
    /// A WAV file; `loop` restarts it at the end, otherwise silence follows.
    case file(URL, loop: Bool)
    /// Frames pushed by the app at `sampleRate` Hz; the stream's end is treated as silence.
    case buffer(AsyncStream<[Int16]>, sampleRate: Int)
    /// The app's own frame source, read on the call's 20 ms audio clock thread (48 kHz mono, one frame a
    /// tick; `read` must not block), from the first tick after the agent's audio is connected. In a tick
    /// the input frame is read before the output frame is written, so an app that is both source and sink
    /// (`AudioOutput.frames`) hears and answers on one clock with no task, stream or copy in between.
    case frames(any AudioFrameSource)
    /// Silence.
    case null

    /// A short description for logs and `AudioState.inputName`.
    public var displayName: String {
        switch self {
        case .defaultDevice: "default device"
        case .device(let name): "device \(name)"
        case .file(let url, let loop): "file \(url.lastPathComponent)\(loop ? " (loop)" : "")"
        case .buffer(_, let rate): "app buffer (\(rate) Hz)"
        case .frames(let source): source.name
        case .null: "null"
        }
    }
}

/// The speaker side of a call. App and file audio is mono 16-bit PCM.
public enum AudioOutput: Sendable {
    /// The system's default playback device.
    case defaultDevice
    /// A playback device whose name contains this text (case-insensitive) or whose id equals it.
    case device(String)
    /// A WAV file written while the call runs.
    case file(URL)
    /// Each played frame at `sampleRate` Hz is yielded to this continuation.
    case buffer(AsyncStream<[Int16]>.Continuation, sampleRate: Int)
    /// The app's own frame sink, written on the call's 20 ms audio clock thread (48 kHz mono, one frame a
    /// tick, after that tick's input frame was read; `write` must not block).
    case frames(any AudioFrameSink)
    /// Discard.
    case null

    /// A short description for logs and `AudioState.outputName`.
    public var displayName: String {
        switch self {
        case .defaultDevice: "default device"
        case .device(let name): "device \(name)"
        case .file(let url): "file \(url.lastPathComponent)"
        case .buffer(_, let rate): "app buffer (\(rate) Hz)"
        case .frames(let sink): sink.name
        case .null: "null"
        }
    }
}
