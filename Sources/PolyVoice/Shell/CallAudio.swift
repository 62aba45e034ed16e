// The audio endpoints of one call (device, WAV file, app buffer, null) and the meters between them and
// the media session.
import PolyAudio
import Synchronization

/// The call's audio: the source the media reads, the sink it writes, meters and the playout gate.
struct CallAudio: Sendable {
    let meters: CallAudioMeters
    let source: MeteredSource
    let sink: GatedSink
    var inputName: String { source.endpoint.name }
    var outputName: String { sink.endpoint.name }

    /// Opens the endpoints the options ask for. Missing devices or files throw `.voice(.deviceUnavailable)`.
    static func make(input: AudioInput, output: AudioOutput, logger: Logger) throws(PolyError) -> CallAudio {
        let meters = CallAudioMeters()
        let source = try openSource(input)
        let sink: any AudioFrameSink
        do {
            sink = try openSink(output)
        } catch {
            source.close()
            throw error
        }
        logger.debug("audio: \(source.name) → call → \(sink.name)")
        return CallAudio(
            meters: meters, source: MeteredSource(source, meters: meters, holdUntilConnected: input.isFinite),
            sink: GatedSink(sink, meters: meters))
    }

    /// Whether a finite input (WAV file without loop, finished app stream) has been played to its end.
    var inputFinished: Bool { source.endpoint.endOfStream }

    /// Closes the endpoints (device streams, WAV headers, app streams). Idempotent.
    func close() {
        source.close()
        sink.close()
    }

    /// Switches the device of one direction; returns the new device's name.
    func switchDevice(to query: String, direction: PolyCall.AudioDeviceDirection) throws(PolyError) -> String {
        do {
            switch direction {
            case .input:
                guard let device = source.endpoint as? DeviceSource else { throw Self.noDevice(direction) }
                try device.switchDevice(to: AudioDevices.select(byIdOrName: query, for: .input))
                return device.name
            case .output:
                guard let device = sink.endpoint as? DeviceSink else { throw Self.noDevice(direction) }
                try device.switchDevice(to: AudioDevices.select(byIdOrName: query, for: .output))
                return device.name
            }
        } catch let error as PolyError {
            throw error
        } catch {
            throw .voice(.deviceUnavailable(String(describing: error)))
        }
    }

    private static func noDevice(_ direction: PolyCall.AudioDeviceDirection) -> PolyError {
        .voice(.deviceUnavailable("this call does not use an audio device for its \(direction)"))
    }

    private static func openSource(_ input: AudioInput) throws(PolyError) -> any AudioFrameSource {
        do {
            switch input {
            case .defaultDevice: return try DeviceSource()
            case .device(let query):
                return try DeviceSource(device: AudioDevices.select(byIdOrName: query, for: .input))
            case .file(let url, let loop): return try WAVFileSource(url: url, loop: loop, ending: .end)
            case .buffer(let stream, let rate): return try BufferSource(stream: stream, sampleRate: rate)
            case .null: return NullSource()
            }
        } catch {
            throw .voice(.deviceUnavailable("\(input.displayName): \(error)"))
        }
    }

    private static func openSink(_ output: AudioOutput) throws(PolyError) -> any AudioFrameSink {
        do {
            switch output {
            case .defaultDevice: return try DeviceSink()
            case .device(let query): return try DeviceSink(device: AudioDevices.select(byIdOrName: query, for: .output))
            case .file(let url): return try WAVFileSink(url: url)
            case .buffer(let continuation, let rate):
                return try BufferSink(continuation: continuation, sampleRate: rate)
            case .null: return NullSink()
            }
        } catch {
            throw .voice(.deviceUnavailable("\(output.displayName): \(error)"))
        }
    }
}

/// The media's microphone: reads the endpoint, measures the frame's level. Audio clock thread only.
final class MeteredSource: AudioFrameSource, @unchecked Sendable {
    let endpoint: any AudioFrameSource
    private let meters: CallAudioMeters
    private let closed = Atomic<Bool>(false)
    private let holdUntilConnected: Bool

    init(_ endpoint: any AudioFrameSource, meters: CallAudioMeters, holdUntilConnected: Bool) {
        self.endpoint = endpoint
        self.meters = meters
        self.holdUntilConnected = holdUntilConnected
    }

    var name: String { endpoint.name }
    var endOfStream: Bool { endpoint.endOfStream }

    /// Always fills the whole frame (silence where there is no audio) and reports it all as audio.
    func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Int {
        // A device is read (and its audio dropped) so that its ring does not fill with stale audio.
        guard !closed.load(ordering: .acquiring), !holdUntilConnected || meters.isCaptureOpen else {
            frame.update(repeating: 0)
            return frame.count
        }
        let real = endpoint.read(into: frame)
        if !meters.isCaptureOpen {
            frame.update(repeating: 0)
            return frame.count
        }
        if real < frame.count, real >= 0 { UnsafeMutableBufferPointer(rebasing: frame[real...]).update(repeating: 0) }
        meters.recordInput(dBFS: LevelMeter.measure(UnsafeBufferPointer(frame)).rmsDBFS)
        return frame.count
    }

    func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        endpoint.close()
    }
}

/// The media's speaker: silence while the agent's audio is paused (barge-in), measures what is played.
final class GatedSink: AudioFrameSink, @unchecked Sendable {
    let endpoint: any AudioFrameSink
    private let meters: CallAudioMeters
    private let closed = Atomic<Bool>(false)
    /// One frame of silence, allocated once (the clock thread must not allocate).
    private let silence = UnsafeMutableBufferPointer<Int16>.allocate(capacity: AudioFrameFormat.samplesPerFrame)

    init(_ endpoint: any AudioFrameSink, meters: CallAudioMeters) {
        self.endpoint = endpoint
        self.meters = meters
        silence.initialize(repeating: 0)
    }

    deinit { silence.deallocate() }

    var name: String { endpoint.name }

    func write(_ frame: UnsafeBufferPointer<Int16>) {
        guard !closed.load(ordering: .acquiring) else { return }
        if meters.isPlayoutPaused {
            let count = min(frame.count, silence.count)
            endpoint.write(UnsafeBufferPointer(rebasing: silence[0..<count]))
            meters.recordOutput(dBFS: AudioLevel.floorDBFS)
        } else {
            endpoint.write(frame)
            meters.recordOutput(dBFS: LevelMeter.measure(frame).rmsDBFS)
        }
    }

    func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        endpoint.close()
    }
}

extension AudioInput {
    /// Files and app buffers hold audio that must not be lost before the call connects.
    var isFinite: Bool {
        switch self {
        case .file, .buffer: true
        case .defaultDevice, .device, .null: false
        }
    }
}
