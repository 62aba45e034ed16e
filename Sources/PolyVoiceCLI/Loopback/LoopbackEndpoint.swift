// What `--input` / `--output` of the loopback name: a WAV file or an audio device.
import Foundation
import PolyAudio

enum LoopbackEndpoint {
    /// A path ending in .wav or containing a '/' is a file; anything else names a device.
    static func isFile(_ text: String) -> Bool {
        text.lowercased().hasSuffix(".wav") || text.contains("/")
    }

    /// The file (silence after its end, so a real-time run goes on) or the capture device.
    static func source(_ text: String) throws -> any AudioFrameSource {
        if isFile(text) {
            return try WAVFileSource(url: URL(fileURLWithPath: text), ending: .silence)
        }
        return try DeviceSource(named: text, fallbackToDefault: false)
    }

    /// The file to record to, or the playback device.
    static func sink(_ text: String) throws -> any AudioFrameSink {
        if isFile(text) { return try WAVFileSink(url: URL(fileURLWithPath: text)) }
        return try DeviceSink(named: text, fallbackToDefault: false)
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
