// Whether the microphone goes through WebRTC audio processing.

/// Echo cancellation, noise suppression and gain control on the microphone.
public enum AudioProcessing: Hashable, Sendable {
    case on
    case off
    /// On for physical devices (speaker + mic), off for files, app buffers and null I/O.
    case auto
}
