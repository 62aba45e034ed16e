// What the app should know about the call's audio: devices, mute, the agent's playout.

/// How an audio device of the call is doing.
public enum DeviceStatus: Hashable, Sendable {
    /// The device is open and running.
    case active
    /// The device disappeared and no replacement is running (audio is dropped / silence is sent).
    case lost
    /// The device named `from` disappeared; audio moved to the current (default) device.
    case fellBack(from: String)
}

/// The audio side of a call. `audioStates` on a call replays the latest one to new subscribers.
public struct AudioState: Hashable, Sendable {
    /// Name of the capture device, or a description of the source ("file x.wav", "app buffer", "null").
    public var inputName: String?
    /// Name of the playback device, or a description of the sink.
    public var outputName: String?
    public var inputStatus: DeviceStatus
    public var outputStatus: DeviceStatus
    /// The microphone is muted: silence/DTX is sent, RTP keeps flowing.
    public var isMuted: Bool
    /// The agent's audio is paused because the caller barged in; resumes on the bridge's `unmute`.
    public var isAgentAudioPaused: Bool

    public init(
        inputName: String? = nil, outputName: String? = nil, inputStatus: DeviceStatus = .active,
        outputStatus: DeviceStatus = .active, isMuted: Bool = false, isAgentAudioPaused: Bool = false
    ) {
        self.inputName = inputName
        self.outputName = outputName
        self.inputStatus = inputStatus
        self.outputStatus = outputStatus
        self.isMuted = isMuted
        self.isAgentAudioPaused = isAgentAudioPaused
    }
}

extension AudioState {
    /// Applies a `CallStateMachine` action that concerns the audio state (mute, agent playout pause);
    /// returns whether the state changed, i.e. whether the shell should publish it on `audioStates`.
    @discardableResult
    public mutating func apply(_ action: CallAction) -> Bool {
        let before = self
        switch action {
        case .setMicrophoneMuted(let muted): isMuted = muted
        case .pausePlayout: isAgentAudioPaused = true
        case .resumePlayout: isAgentAudioPaused = false
        default: break
        }
        return self != before
    }
}
