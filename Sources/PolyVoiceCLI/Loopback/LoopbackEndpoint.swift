// The loopback's ends: the WAV file, stream, null or device an `AudioEndpointArgument` names.
import FoundationEssentials
import PolyAudio

enum LoopbackEndpoint {
    /// The WAV file the input reads (a file, or standard input for "-"); nil for a device or null.
    static func inputFile(_ argument: AudioEndpointArgument) -> String? {
        switch argument {
        case .file(let path): path
        case .standardStream: StandardAudioStream.inputPath
        case .defaultDevice, .device, .null: nil
        }
    }

    /// The file the output writes (a file, /dev/null, or standard output for "-", which moves the
    /// command's own printing to stderr); nil for a device.
    static func outputFile(_ argument: AudioEndpointArgument) throws -> String? {
        switch argument {
        case .file(let path): path
        case .null: "/dev/null"
        case .standardStream: try StandardAudioStream.takeStandardOutput()
        case .defaultDevice, .device: nil
        }
    }

    /// The file (silence after its end, so a real-time run goes on), silence, or the capture device.
    static func source(_ argument: AudioEndpointArgument) throws -> any AudioFrameSource {
        if let path = inputFile(argument) {
            return try WAVFileSource(url: URL(fileURLWithPath: path), ending: .silence)
        }
        if argument == .null { return NullSource() }
        return try DeviceSource(named: name(argument), fallbackToDefault: false)
    }

    /// The file to record to (`file` from `outputFile`), or the playback device.
    static func sink(_ argument: AudioEndpointArgument, file: String?) throws -> any AudioFrameSink {
        if let file { return try WAVFileSink(url: URL(fileURLWithPath: file)) }
        return try DeviceSink(named: name(argument), fallbackToDefault: false)
    }

    private static func name(_ argument: AudioEndpointArgument) -> String {
        if case .device(let name) = argument { return name }
        return "default"
    }

    /// Every device, one a line, for error messages ("none" on a machine without any).
    static func deviceListing() -> String {
        guard let devices = try? AudioDevices.list(), !devices.isEmpty else {
            return "Audio devices: none (for a virtual one: eval \"$(bash scripts/pulse-null.sh start)\")"
        }
        let lines = devices.map { device in
            "  \(device.id): \(device.name) (\(device.hostAPI), in \(device.maxInputChannels), "
                + "out \(device.maxOutputChannels))"
        }
        return "Audio devices:\n" + lines.joined(separator: "\n")
    }
}
