// The CI device test: real PortAudio streams on a real-time paced device (scripts/pulse-null.sh's
// PulseAudio null sink). Runs only when scripts/test.sh sets POLYVOICE_DEVICE_TEST=1 — and then fails
// loudly if no device appears.
import Foundation
import Testing

@testable import PolyAudio

private let deviceTestEnabled = ProcessInfo.processInfo.environment["POLYVOICE_DEVICE_TEST"] == "1"

@Suite(.enabled(if: deviceTestEnabled, "set POLYVOICE_DEVICE_TEST=1 with a device (scripts/test.sh does)"), .serialized)
struct DeviceLiveTests {
    /// Runs `pactl` against the test's PulseAudio server (PULSE_SERVER from scripts/pulse-null.sh).
    static func pactl(_ arguments: String...) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/pactl")
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "pactl \(arguments) failed")
    }

    @Test func listsTheDefaultDevices() throws {
        let devices = try AudioDevices.list()
        #expect(!devices.isEmpty, "PortAudio lists no device: is the PulseAudio null sink running?")
        let input = try AudioDevices.defaultDevice(for: .input)
        let output = try AudioDevices.defaultDevice(for: .output)
        #expect(input.maxInputChannels > 0)
        #expect(output.maxOutputChannels > 0)
        #expect(try AudioDevices.select(byIdOrName: "\(output.id)", for: .output) == output)
    }

    /// Plays a tone on the default output and captures the default input for 3 s, paced like a call:
    /// both streams run in real time, deliver nearly every frame, and report no loss.
    @Test func capturesAndPlaysInRealTime() async throws {
        let source = try DeviceSource()
        let sink = try DeviceSink()
        let tone = TestSignals.sine(frequency: 440, sampleRate: 48000, seconds: 0.02, amplitude: 0.3)
        let frames = 150
        var captured = [Int16](repeating: 0, count: frames * AudioFrameFormat.samplesPerFrame)
        var realSamples = 0
        let clock = ContinuousClock()
        let start = clock.now
        for frame in 0..<frames {
            tone.withUnsafeBufferPointer { sink.write($0) }
            realSamples += captured.withUnsafeMutableBufferPointer { buffer in
                let offset = frame * AudioFrameFormat.samplesPerFrame
                return source.read(
                    into: UnsafeMutableBufferPointer(
                        rebasing: buffer[offset..<(offset + AudioFrameFormat.samplesPerFrame)]))
            }
            try await clock.sleep(until: start + .milliseconds(20 * (frame + 1)))
        }
        let elapsed = clock.now - start
        let inputCounters = source.counters
        let outputCounters = sink.counters
        let inputRate = try #require(source.device).defaultSampleRate
        let outputRate = try #require(sink.device).defaultSampleRate
        source.close()
        sink.close()
        var events: [AudioDeviceEvent] = []
        for await event in source.events { events.append(event) }
        for await event in sink.events { events.append(event) }

        #expect(events.allSatisfy { if case .active = $0 { true } else { false } }, "\(events)")
        #expect(inputCounters.callbacks > 0 && outputCounters.callbacks > 0)
        // Real time: the device took about 3 s for 3 s of audio (an unpaced device races far ahead).
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let capturedSeconds = Double(inputCounters.samples) / inputRate
        let playedSeconds = Double(outputCounters.samples) / outputRate
        #expect(capturedSeconds > 0.6 * seconds && capturedSeconds < 1.2 * seconds, "captured \(capturedSeconds) s")
        // PulseAudio holds playback for up to ~1 s at stream start while it prebuffers.
        #expect(playedSeconds > 0.4 * seconds && playedSeconds < 1.2 * seconds, "played \(playedSeconds) s")
        #expect(realSamples > captured.count / 2, "only \(realSamples) of \(captured.count) samples captured")
        #expect(outputCounters.samples > 0 && inputCounters.samples > 0)
        print(
            "device test: \(String(format: "%.2f", seconds)) s paced; captured \(inputCounters.samples) at "
                + "\(Int(inputRate)) Hz, played \(outputCounters.samples) at \(Int(outputRate)) Hz; "
                + "underruns in \(inputCounters.underruns)/out \(outputCounters.underruns), overruns in "
                + "\(inputCounters.overruns)/out \(outputCounters.overruns); \(realSamples) samples read")
    }

    /// Suspending the sink stops playback callbacks: the sink reports the loss within about 500 ms and,
    /// once the sink is back, falls back to the default device and plays again.
    @Test func reportsLossAndFallsBack() async throws {
        let sink = try DeviceSink()
        var events = sink.events.makeAsyncIterator()
        #expect(await events.next() == .active(device: try #require(sink.device).name))
        let frame = [Int16](repeating: 0, count: AudioFrameFormat.samplesPerFrame)
        let clock = ContinuousClock()
        // Past the start-up allowance (3 s), so the 500 ms callback limit applies.
        let start = clock.now
        while clock.now - start < .milliseconds(3300) {
            frame.withUnsafeBufferPointer { sink.write($0) }
            try await clock.sleep(for: .milliseconds(20))
        }
        try Self.pactl("suspend-sink", "polyvoice_null", "1")
        let suspended = clock.now
        let lost = await events.next()
        let detection = clock.now - suspended
        try Self.pactl("suspend-sink", "polyvoice_null", "0")
        guard case .lost(let device, let reason) = lost else {
            Issue.record("expected .lost, got \(String(describing: lost))")
            sink.close()
            return
        }
        #expect(reason.contains("500 ms") || reason.contains("stopped"), "\(device): \(reason)")
        #expect(detection < .milliseconds(1500), "loss noticed after \(detection)")
        let fallback = await events.next()
        #expect(fallback == .fellBack(from: device, to: try AudioDevices.defaultDevice(for: .output).name))
        let before = sink.counters.callbacks
        try await clock.sleep(for: .milliseconds(400))
        #expect(sink.counters.callbacks > before, "no callbacks after falling back")
        sink.close()
        print("device test: loss noticed after \(detection)")
    }
}
