// Where the call's audio comes from and goes to (Linux-specific beyond the mobile SDK).
import Foundation

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
    /// Silence.
    case null

    /// A short description for logs and `AudioState.inputName`.
    public var displayName: String {
        switch self {
        case .defaultDevice: "default device"
        case .device(let name): "device \(name)"
        case .file(let url, let loop): "file \(url.lastPathComponent)\(loop ? " (loop)" : "")"
        case .buffer(_, let rate): "app buffer (\(rate) Hz)"
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
    /// Discard.
    case null

    /// A short description for logs and `AudioState.outputName`.
    public var displayName: String {
        switch self {
        case .defaultDevice: "default device"
        case .device(let name): "device \(name)"
        case .file(let url): "file \(url.lastPathComponent)"
        case .buffer(_, let rate): "app buffer (\(rate) Hz)"
        case .null: "null"
        }
    }
}
