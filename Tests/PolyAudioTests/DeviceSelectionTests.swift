// Choosing a device by id, name or "default", and the errors that name what exists.
import Testing

@testable import PolyAudio

@Suite struct DeviceSelectionTests {
    static let devices = [
        AudioDeviceInfo(
            id: 0, name: "HDA Intel PCH: ALC892 Analog (hw:0,0)", hostAPI: "ALSA", maxInputChannels: 2,
            maxOutputChannels: 8, defaultSampleRate: 44100, isDefaultInput: false, isDefaultOutput: false),
        AudioDeviceInfo(
            id: 1, name: "USB Headset: Audio (hw:1,0)", hostAPI: "ALSA", maxInputChannels: 1, maxOutputChannels: 2,
            defaultSampleRate: 48000, isDefaultInput: false, isDefaultOutput: false),
        AudioDeviceInfo(
            id: 2, name: "HDMI 0 (hw:0,3)", hostAPI: "ALSA", maxInputChannels: 0, maxOutputChannels: 2,
            defaultSampleRate: 48000, isDefaultInput: false, isDefaultOutput: false),
        AudioDeviceInfo(
            id: 3, name: "pulse", hostAPI: "ALSA", maxInputChannels: 32, maxOutputChannels: 32,
            defaultSampleRate: 44100, isDefaultInput: false, isDefaultOutput: false),
        AudioDeviceInfo(
            id: 4, name: "default", hostAPI: "ALSA", maxInputChannels: 32, maxOutputChannels: 32,
            defaultSampleRate: 44100, isDefaultInput: true, isDefaultOutput: true),
    ]

    func select(_ query: String, _ direction: AudioDirection) throws(AudioDeviceError) -> Int {
        try AudioDevices.select(byIdOrName: query, for: direction, in: Self.devices).id
    }

    @Test func selectsByIdNameSubstringAndDefault() throws {
        #expect(try select("1", .input) == 1)
        #expect(try select("usb", .input) == 1)
        #expect(try select("HDMI", .output) == 2)
        #expect(try select("PULSE", .output) == 3)
        #expect(try select("default", .input) == 4)
        // An exact name beats an earlier partial match ("default" is inside no other name here; "pulse" is exact).
        #expect(try select("pulse", .input) == 3)
    }

    @Test func skipsDevicesWithoutTheDirection() {
        // HDMI has no input channels: neither its id nor its name selects it for capture.
        #expect(throws: AudioDeviceError.self) { try select("2", .input) }
        #expect(throws: AudioDeviceError.self) { try select("hdmi", .input) }
    }

    @Test func noMatchNamesWhatExists() throws {
        let error = try #require(throws: AudioDeviceError.self) { try select("bluetooth", .input) }
        guard case .notFound(let query, let direction, let available) = error else {
            Issue.record("expected notFound, got \(error)")
            return
        }
        #expect(query == "bluetooth" && direction == .input)
        #expect(
            available == [
                "0: HDA Intel PCH: ALC892 Analog (hw:0,0)", "1: USB Headset: Audio (hw:1,0)", "3: pulse", "4: default",
            ])
        #expect(error.description.contains("no input device matches 'bluetooth'; available: 0: HDA Intel"))
    }

    @Test func emptyListSaysThereAreNoDevices() {
        #expect(throws: AudioDeviceError.noDevices(.output)) {
            try AudioDevices.select(byIdOrName: "default", for: .output, in: [])
        }
        #expect(AudioDeviceError.noDevices(.input).description.contains("scripts/pulse-null.sh"))
    }
}
