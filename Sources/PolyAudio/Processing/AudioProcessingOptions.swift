// Which voice-processing components run on the microphone signal.

/// The components of `AudioProcessor`: on by default when microphone and speaker are both devices.
public struct AudioProcessingOptions: Sendable, Equatable {
    /// Removes the far end's voice (the playout signal) from the microphone signal.
    public var echoCancellation: Bool
    /// Suppresses stationary background noise (fans, hum, hiss).
    public var noiseSuppression: Bool
    /// Adaptive digital gain towards a steady speech level, with a limiter.
    public var gainControl: Bool

    public init(echoCancellation: Bool = true, noiseSuppression: Bool = true, gainControl: Bool = true) {
        self.echoCancellation = echoCancellation
        self.noiseSuppression = noiseSuppression
        self.gainControl = gainControl
    }

    /// Everything on: for a microphone and a speaker in the same room.
    public static let all = AudioProcessingOptions()
    /// Everything off: the signal passes unchanged (files, app buffers).
    public static let none = AudioProcessingOptions(
        echoCancellation: false, noiseSuppression: false, gainControl: false)

    /// Whether any component is on.
    public var isEnabled: Bool { echoCancellation || noiseSuppression || gainControl }
}
