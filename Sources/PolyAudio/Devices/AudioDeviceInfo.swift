// What PortAudio tells about one audio device.

/// Capture or playback.
public enum AudioDirection: String, Sendable, Equatable, Codable {
    case input
    case output
}

/// One audio device as PortAudio lists it.
public struct AudioDeviceInfo: Sendable, Equatable, Codable, CustomStringConvertible {
    /// PortAudio's device index: stable while the process runs (the list is read once per process).
    public let id: Int
    public let name: String
    /// The host API that provides it ("ALSA", "OSS", "JACK Audio Connection Kit").
    public let hostAPI: String
    public let maxInputChannels: Int
    public let maxOutputChannels: Int
    /// The rate the device runs at natively; streams are opened at it and resampled to/from 48 kHz.
    public let defaultSampleRate: Double
    public let isDefaultInput: Bool
    public let isDefaultOutput: Bool

    public init(
        id: Int, name: String, hostAPI: String, maxInputChannels: Int, maxOutputChannels: Int,
        defaultSampleRate: Double, isDefaultInput: Bool, isDefaultOutput: Bool
    ) {
        self.id = id
        self.name = name
        self.hostAPI = hostAPI
        self.maxInputChannels = maxInputChannels
        self.maxOutputChannels = maxOutputChannels
        self.defaultSampleRate = defaultSampleRate
        self.isDefaultInput = isDefaultInput
        self.isDefaultOutput = isDefaultOutput
    }

    /// Whether the device can capture (`.input`) or play (`.output`).
    public func supports(_ direction: AudioDirection) -> Bool {
        direction == .input ? maxInputChannels > 0 : maxOutputChannels > 0
    }

    /// "3: pulse" — how errors and lists name a device.
    public var description: String { "\(id): \(name)" }
}
