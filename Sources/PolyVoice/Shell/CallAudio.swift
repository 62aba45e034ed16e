// The audio endpoints of one call and the meters between them and the media session.

/// The call's audio: meters and the playout gate, and the endpoints the media reads and writes.
struct CallAudio: Sendable {
    let meters = CallAudioMeters()
    let inputName: String
    let outputName: String

    static func make(input: AudioInput, output: AudioOutput, logger: Logger) throws(PolyError) -> CallAudio {
        CallAudio(inputName: input.displayName, outputName: output.displayName)
    }

    /// Closes the endpoints (device streams, WAV headers, app streams). Idempotent.
    func close() {}

    /// Switches a device endpoint; returns the new device's name.
    func switchDevice(to query: String, direction: PolyCall.AudioDeviceDirection) throws(PolyError) -> String {
        throw .voice(.deviceUnavailable("this call does not use an audio device for its \(direction)"))
    }
}
