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
        // Opening by name works, and a name that matches nothing says what exists.
        let source = try DeviceSource(named: input.name)
        #expect(source.device?.id == input.id)
        source.close()
        #expect {
            _ = try DeviceSink(named: "no-such-device-xyz")
        } throws: { error in
            (error as? AudioDeviceError)?.description.contains("available: ") == true
        }
    }

    /// What the pacing thread saw.
    struct PacedRun: Sendable {
        var realSamples = 0
        var elapsed: Duration = .zero
        /// Counters and time at the half-way point and at the end.
        var middle: (input: AudioDeviceCounters, output: AudioDeviceCounters, at: Duration)?
    }

    /// Writes a tone and reads a frame every 20 ms for `frames` frames on a dedicated thread, like the
    /// media session's pacing thread (the test runner's cooperative threads may be busy with other tests).
    static func pace(source: DeviceSource, sink: DeviceSink, frames: Int) async -> PacedRun {
        await withCheckedContinuation { done in
            let thread = Thread {
                let tone = TestSignals.sine(frequency: 440, sampleRate: 48000, seconds: 0.02, amplitude: 0.3)
                var buffer = [Int16](repeating: 0, count: AudioFrameFormat.samplesPerFrame)
                var run = PacedRun()
                let clock = ContinuousClock()
                let start = clock.now
                for frame in 0..<frames {
                    tone.withUnsafeBufferPointer { sink.write($0) }
                    run.realSamples += buffer.withUnsafeMutableBufferPointer { source.read(into: $0) }
                    if frame == frames / 2 { run.middle = (source.counters, sink.counters, clock.now - start) }
                    let next = start + .milliseconds(20 * (frame + 1))
                    let wait = next - clock.now
                    if wait > .zero {
                        Thread.sleep(forTimeInterval: Double(wait.components.attoseconds) * 1e-18)
                    }
                }
                run.elapsed = clock.now - start
                done.resume(returning: run)
            }
            thread.start()
        }
    }

    /// Plays a tone on the default output and captures the default input for 3 s, paced like a call:
    /// both streams run in real time, deliver nearly every frame, and report no loss.
    @Test func capturesAndPlaysInRealTime() async throws {
        let source = try DeviceSource()
        let sink = try DeviceSink()
        let frames = 150
        let run = await Self.pace(source: source, sink: sink, frames: frames)
        let input = source.counters
        let output = sink.counters
        let inputRate = try #require(source.device).defaultSampleRate
        let outputRate = try #require(sink.device).defaultSampleRate
        source.close()
        sink.close()
        var events: [AudioDeviceEvent] = []
        for await event in source.events { events.append(event) }
        for await event in sink.events { events.append(event) }

        #expect(events.allSatisfy { if case .active = $0 { true } else { false } }, "\(events)")
        #expect(input.callbacks > 0 && output.callbacks > 0 && input.samples > 0 && output.samples > 0)
        // Real time: the device took about 3 s for 3 s of audio (an unpaced device races far ahead).
        let seconds = Self.seconds(run.elapsed)
        let capturedSeconds = Double(input.samples) / inputRate
        #expect(capturedSeconds > 0.6 * seconds && capturedSeconds < 1.2 * seconds, "captured \(capturedSeconds) s")
        #expect(run.realSamples > frames * AudioFrameFormat.samplesPerFrame / 2, "only \(run.realSamples) samples read")
        let playedSeconds = Double(output.samples) / outputRate
        #expect(playedSeconds > 0.8 * seconds && playedSeconds < 1.2 * seconds, "played \(playedSeconds) s")
        // And steadily: the second half alone plays at real-time pace.
        let middle = try #require(run.middle)
        let secondHalf = seconds - Self.seconds(middle.at)
        let playedRate = Double(output.samples - middle.output.samples) / outputRate / secondHalf
        #expect(playedRate > 0.7 && playedRate < 1.3, "played \(playedRate) s per second in the second half")
        print(
            "device test: \(String(format: "%.2f", seconds)) s paced; captured \(input.samples) at "
                + "\(Int(inputRate)) Hz, played \(output.samples) at \(Int(outputRate)) Hz "
                + "(\(String(format: "%.2f", playedRate))× real time in the second half); underruns in "
                + "\(input.underruns)/out \(output.underruns), overruns in \(input.overruns)/out \(output.overruns); "
                + "\(run.realSamples) samples read")
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
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

    /// `switchDevice` moves a running capture to another device; audio keeps coming.
    @Test func switchesDevicesWhileRunning() async throws {
        let source = try DeviceSource()
        var events = source.events.makeAsyncIterator()
        _ = await events.next()
        let other = try #require(
            try AudioDevices.list().first { $0.maxInputChannels > 0 && $0.id != source.device?.id },
            "the device test needs two capture devices (PulseAudio gives 'pulse' and 'default')")
        try source.switchDevice(to: other)
        #expect(await events.next() == .switched(to: other.name))
        #expect(source.device == other)
        var buffer = [Int16](repeating: 0, count: AudioFrameFormat.samplesPerFrame)
        var real = 0
        for _ in 0..<25 {
            try await Task.sleep(for: .milliseconds(20))
            real += buffer.withUnsafeMutableBufferPointer { source.read(into: $0) }
        }
        source.close()
        #expect(real > 0, "no audio after switching to \(other.name)")
    }
}
