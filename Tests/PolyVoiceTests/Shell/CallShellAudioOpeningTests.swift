// A call's audio endpoints are opened by start(), not by creating the call, and released at its end.
import Foundation
import PolyAudio
import PolyCore
import Testing

@testable import PolyVoice

@Suite("Call shell audio: endpoints open at start and close at the end", .serialized)
struct CallShellAudioOpeningTests {
    /// Creating the call opens nothing (the output WAV does not exist yet); start() creates it; the end
    /// finishes it (a valid WAV holding what was played).
    @Test func outputFileIsCreatedAtStartAndFinishedAtTheEnd() async throws {
        let harness = try ShellHarness()
        defer { harness.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("polyvoice-open-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("played.wav")

        let call = try harness.call(options: VoiceOptions(input: .null, output: .file(output)))
        #expect(!FileManager.default.fileExists(atPath: output.path))
        #expect(call.audioCounters == CallAudioCounters())
        try await call.start()
        #expect(FileManager.default.fileExists(atPath: output.path))
        #expect(await Wait.state(of: call) { $0 == .connected } == .connected)
        await call.end()
        #expect(call.state == .ended)
        // The header was finished: the file parses.
        _ = try WAVFile.read(from: output)
    }

    /// A device or file that cannot be opened fails start() with `.voice(.deviceUnavailable)` naming it,
    /// before anything reaches the bridge; the call is then failed and start() does nothing more.
    @Test(arguments: ["device", "file"])
    func missingInputFailsStartWithDeviceUnavailable(kind: String) async throws {
        let harness = try ShellHarness()
        defer { harness.stop() }
        let input: AudioInput =
            kind == "device"
            ? .device("no-such-device-7731") : .file(URL(fileURLWithPath: "/nonexistent/in-7731.wav"), loop: false)
        let call = try harness.call(options: VoiceOptions(input: input, output: .null))
        #expect(call.state == .idle)
        var thrown: PolyError?
        do {
            try await call.start()
        } catch let error as PolyError {
            thrown = error
        }
        guard case .voice(.deviceUnavailable(let detail)) = thrown else {
            Issue.record("start() threw \(String(describing: thrown)), not deviceUnavailable")
            return
        }
        #expect(detail.contains("7731"))
        #expect(call.state == .failed(.voice(.deviceUnavailable(detail))))
        #expect(harness.log.all.isEmpty, "media was made: \(harness.log.all)")
        #expect(harness.bridge.activeCalls == 0)
        try await call.start()  // a failed call does not start again
        #expect(harness.log.all.isEmpty)
        await call.end()
    }

    /// A call never started holds nothing: end() releases nothing and later start() does nothing.
    @Test func endBeforeStartOpensNothing() async throws {
        let audio = CallAudio(
            input: .defaultDevice, output: .defaultDevice, processing: .auto,
            logger: Logger(level: .error, sink: .handler { _ in }, redactor: Redactor()))
        #expect(audio.source.endpoint == nil && audio.sink.endpoint == nil)
        #expect(audio.inputName == "default device")
        audio.close()
        #expect(throws: PolyError.self) { try audio.open() }
        #expect(audio.source.endpoint == nil && audio.sink.endpoint == nil)
    }

    /// Device events as `audioStates` shows them: lost, fallen back to the default, switched.
    @Test func deviceEventsUpdateTheAudioState() {
        var state = AudioState(inputName: "default device", outputName: "default device")
        state.apply(.active(device: "USB Mic"), for: .input)
        #expect(state.inputName == "USB Mic" && state.inputStatus == .active)
        state.apply(.lost(device: "USB Mic", reason: "stream stopped"), for: .input)
        #expect(state.inputName == "USB Mic" && state.inputStatus == .lost)
        state.apply(.fellBack(from: "USB Mic", to: "pulse"), for: .input)
        #expect(state.inputName == "pulse" && state.inputStatus == .fellBack(from: "USB Mic"))
        state.apply(.switched(to: "Headset"), for: .output)
        #expect(state.outputName == "Headset" && state.outputStatus == .active)
        #expect(state.inputName == "pulse")
    }
}
