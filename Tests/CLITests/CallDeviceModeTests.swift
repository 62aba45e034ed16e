// `polyvoice call --input default --output default` through PortAudio on the CI's PulseAudio null sink
// and source (scripts/pulse-null.sh). Runs only with POLYVOICE_DEVICE_TEST=1 (scripts/test.sh sets it
// after starting the server), and then fails if the devices do not work.
import Foundation
import Testing

private let deviceTestEnabled = ProcessInfo.processInfo.environment["POLYVOICE_DEVICE_TEST"] == "1"

@Suite(
    "polyvoice call on audio devices",
    .enabled(if: deviceTestEnabled, "set POLYVOICE_DEVICE_TEST=1 with a device (scripts/test.sh does)"), .serialized)
struct CallDeviceModeTests {
    /// A 3 s call on the default microphone and speaker against the echo agent: it ends normally, the
    /// microphone was captured and the agent's audio played by the device's callback, with voice
    /// processing on (both ends are devices) and no error.
    @Test func deviceCallCapturesAndPlays() async throws {
        let bridge = try BridgeProcess()
        defer { bridge.stop() }
        var environment = ProcessInfo.processInfo.environment
        environment["POLYVOICE_WEBRTC_TOKEN"] = BridgeProcess.token
        let result = try await runPolyvoice(
            [
                "call", "--environment", "local:\(bridge.port)", "--input", "default", "--output", "default",
                "--duration", "3", "--json",
            ], environment: environment)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let events = try result.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(!events.contains { $0["type"] as? String == "warning" && $0["warning"] as? String == "deviceLost" })
        let summary = try #require(events.last)
        #expect(summary["type"] as? String == "summary")
        #expect(summary["result"] as? String == "ended")
        #expect(summary["error"] == nil)
        let audio = try #require(summary["audio"] as? [String: Any])
        let figure = { (key: String) in audio[key] as? Int ?? -1 }
        // About 3 s at 48 kHz, read from the capture device's ring and played through the device.
        #expect(figure("capturedSamples") > 48_000, "\(audio)")
        #expect(figure("inputDeviceSamples") > 48_000, "\(audio)")
        #expect(figure("playedSamples") > 48_000, "\(audio)")
        #expect(figure("outputDeviceSamples") > 48_000, "\(audio)")
        #expect(audio["processing"] as? Bool == true)
        #expect(try #require(summary["packetsReceived"] as? Int) > 50, "\(summary)")
        #expect(!result.stderr.contains("error"), "\(result.stderr)")

        // The same call with --no-audio-processing reports processing off.
        let plain = try await runPolyvoice(
            [
                "call", "--environment", "local:\(bridge.port)", "--input", "default", "--output", "default",
                "--duration", "1", "--json", "--no-audio-processing",
            ], environment: environment)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout.split(separator: "\n").last?.contains(#""processing":false"#) == true, "\(plain.stdout)")
    }
}
