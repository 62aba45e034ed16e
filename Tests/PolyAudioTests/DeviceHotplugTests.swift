// Devices that appear while the process runs: PortAudio rescans on listing when no stream is open.
// Needs the CI's PulseAudio set-up (POLYVOICE_DEVICE_TEST=1, scripts/pulse-null.sh's ALSA configuration
// file): an ALSA device is "plugged in" by adding it to that file, and removed again.
import Foundation
import Testing

@testable import PolyAudio

private let deviceTestEnabled = ProcessInfo.processInfo.environment["POLYVOICE_DEVICE_TEST"] == "1"

@Suite(.enabled(if: deviceTestEnabled, "set POLYVOICE_DEVICE_TEST=1 with a device (scripts/test.sh does)"), .serialized)
struct DeviceHotplugTests {
    static let name = "polyvoice_hotplug"

    static func names() throws -> Set<String> { Set(try AudioDevices.list().map(\.name)) }

    /// Replaces the file (a new inode, so ALSA sees the change even within the same second).
    static func write(_ text: String, to file: URL) throws {
        try text.write(to: file, atomically: true, encoding: .utf8)
    }

    @Test func aDeviceAddedLaterIsListedOnceNoStreamIsOpen() throws {
        let directory = try #require(ProcessInfo.processInfo.environment["POLYVOICE_PULSE_DIR"])
        let file = URL(fileURLWithPath: directory).appendingPathComponent("asoundrc")
        let original = try String(contentsOf: file, encoding: .utf8)
        defer { try? Self.write(original, to: file) }

        #expect(!(try Self.names()).contains(Self.name))
        try Self.write(original + "pcm.\(Self.name) { type null }\n", to: file)
        #expect(try Self.names().contains(Self.name), "a device added to ALSA's configuration is not listed")

        // With a stream open PortAudio is not re-initialised: the removed device stays listed (from the
        // scan before the stream opened) until the stream is closed.
        let sink = try DeviceSink()
        try Self.write(original, to: file)
        #expect(try Self.names().contains(Self.name))
        #expect(sink.device != nil)
        sink.close()
        #expect(!(try Self.names()).contains(Self.name), "a removed device is still listed with no stream open")
    }
}
