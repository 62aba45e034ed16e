// Why an audio device could not be found, opened or kept running.

/// An audio device problem, phrased for the person at the terminal.
public enum AudioDeviceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// PortAudio itself could not start.
    case unavailable(String)
    /// No device can do this direction (e.g. a machine without a sound card or sound server).
    case noDevices(AudioDirection)
    /// Nothing matches the id or name; `available` lists the devices that could be chosen.
    case notFound(query: String, direction: AudioDirection, available: [String])
    /// PortAudio refused an operation on a device.
    case portAudio(operation: String, device: String, message: String)

    public var description: String {
        switch self {
        case .unavailable(let reason): return "audio system unavailable: \(reason)"
        case .noDevices(let direction):
            return "no audio \(direction) device found (no sound card or sound server; "
                + "scripts/pulse-null.sh starts a virtual one)"
        case .notFound(let query, let direction, let available):
            let list = available.isEmpty ? "none" : available.joined(separator: ", ")
            return "no \(direction) device matches '\(query)'; available: \(list)"
        case .portAudio(let operation, let device, let message):
            return "\(operation) failed on audio device '\(device)': \(message)"
        }
    }
}
