// Listing and choosing audio devices.
import CPortAudio

/// The audio devices PortAudio sees (ALSA, including PulseAudio/PipeWire through ALSA's `pulse`
/// plugin, and OSS). Each listing rescans while no device stream is open in the process, so devices
/// plugged in meanwhile appear; while a stream is open, the scan made before it opened is used.
public enum AudioDevices {
    /// Every device, in PortAudio's order.
    public static func list() throws(AudioDeviceError) -> [AudioDeviceInfo] {
        try PortAudioRuntime.withCurrentDevices(scan)
    }

    /// Reads PortAudio's device list (PortAudio initialised, no rescan meanwhile).
    private static func scan() -> [AudioDeviceInfo] {
        let count = Int(Pa_GetDeviceCount())
        guard count > 0 else { return [] }
        let defaultInput = Int(Pa_GetDefaultInputDevice())
        let defaultOutput = Int(Pa_GetDefaultOutputDevice())
        return (0..<count).compactMap { index in
            guard let info = Pa_GetDeviceInfo(PaDeviceIndex(index))?.pointee else { return nil }
            let hostAPI = Pa_GetHostApiInfo(info.hostApi)?.pointee.name.map { String(cString: $0) } ?? "unknown"
            return AudioDeviceInfo(
                id: index, name: info.name.map { String(cString: $0) } ?? "device \(index)", hostAPI: hostAPI,
                maxInputChannels: Int(info.maxInputChannels), maxOutputChannels: Int(info.maxOutputChannels),
                defaultSampleRate: info.defaultSampleRate, isDefaultInput: index == defaultInput,
                isDefaultOutput: index == defaultOutput)
        }
    }

    /// The system's default device for `direction`.
    public static func defaultDevice(for direction: AudioDirection) throws(AudioDeviceError) -> AudioDeviceInfo {
        let devices = try list()
        let found = devices.first { direction == .input ? $0.isDefaultInput : $0.isDefaultOutput }
        guard let found, found.supports(direction) else { throw .noDevices(direction) }
        return found
    }

    /// The device for `query`: "default", a device id ("3"), or a case-insensitive part of a name
    /// ("pulse"); an exact name wins over a partial one, then the first match in list order.
    public static func select(byIdOrName query: String, for direction: AudioDirection) throws(AudioDeviceError)
        -> AudioDeviceInfo
    {
        try select(byIdOrName: query, for: direction, in: list())
    }

    /// `select(byIdOrName:for:)` over a given list (for tests and callers holding a list).
    public static func select(byIdOrName query: String, for direction: AudioDirection, in devices: [AudioDeviceInfo])
        throws(AudioDeviceError) -> AudioDeviceInfo
    {
        let candidates = devices.filter { $0.supports(direction) }
        guard !candidates.isEmpty else { throw .noDevices(direction) }
        let wanted = query.trimmingWhitespace()
        if wanted.lowercased() == "default" {
            let found = candidates.first { direction == .input ? $0.isDefaultInput : $0.isDefaultOutput }
            guard let found else { throw .noDevices(direction) }
            return found
        }
        // An id means that device (one without this direction is an error, not a name search for "2").
        if let id = Int(wanted), devices.contains(where: { $0.id == id }) {
            guard let device = candidates.first(where: { $0.id == id }) else {
                throw .notFound(query: query, direction: direction, available: candidates.map(\.description))
            }
            return device
        }
        let lowered = wanted.lowercased()
        if let exact = candidates.first(where: { $0.name.lowercased() == lowered }) { return exact }
        if !lowered.isEmpty, let partial = candidates.first(where: { $0.name.lowercased().contains(lowered) }) {
            return partial
        }
        throw .notFound(query: query, direction: direction, available: candidates.map(\.description))
    }
}
