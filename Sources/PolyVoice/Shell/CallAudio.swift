// The audio endpoints of one call (device, WAV file, app buffer, null), opened when the call starts, and
// the meters and voice processing between them and the media session.
import FoundationEssentials
import PolyAudio
import PolyCore
import Synchronization

/// The call's audio: the source the media reads, the sink it writes, meters and the playout gate.
///
/// Made with the call, but nothing is opened until `open()` (at `PolyCall.start()`), so a call object
/// that is never started holds no device; `close()` (at the end of the call) releases everything.
final class CallAudio: Sendable {
    let meters = CallAudioMeters()
    let source: MeteredSource
    let sink: GatedSink
    private let input: AudioInput
    private let output: AudioOutput
    private let processingSetting: AudioProcessing
    private let logger: Logger
    private let processing = Mutex<CallAudioProcessing?>(nil)
    private let phase = Mutex<Phase>(.unopened)

    private enum Phase {
        case unopened
        case open
        case closed
    }

    init(input: AudioInput, output: AudioOutput, processing: AudioProcessing, logger: Logger) {
        self.input = input
        self.output = output
        processingSetting = processing
        self.logger = logger
        source = MeteredSource(placeholder: input.displayName, meters: meters, holdUntilConnected: input.isFinite)
        sink = GatedSink(placeholder: output.displayName, meters: meters)
    }

    var inputName: String { source.name }
    var outputName: String { sink.name }

    /// Opens the endpoints the options ask for, with echo cancellation, noise suppression and gain
    /// control when the options (and, for `.auto`, the endpoints) call for them. Does nothing when
    /// already open. A missing device or file, or a call that already ended, throws
    /// `.voice(.deviceUnavailable)`.
    func open() throws(PolyError) {
        try phase.withLock { (phase: inout Phase) throws(PolyError) in
            switch phase {
            case .open: return
            case .closed: throw .voice(.deviceUnavailable("the call's audio was already released"))
            case .unopened: break
            }
            let source = try Self.openSource(input)
            let sink: any AudioFrameSink
            do throws(PolyError) {
                sink = try Self.openSink(output)
            } catch {
                source.close()
                throw error
            }
            try install(
                source: source, sink: sink, components: processingSetting.components(input: input, output: output))
            phase = .open
        }
    }

    /// Installs opened endpoints (`open()`; tests pass their own) with the given voice processing.
    func install(
        source endpoint: any AudioFrameSource, sink output: any AudioFrameSink, components: AudioProcessingOptions
    )
        throws(PolyError)
    {
        var processor: CallAudioProcessing?
        if components.isEnabled {
            do {
                processor = try CallAudioProcessing(options: components)
            } catch {
                endpoint.close()
                output.close()
                throw .voice(.deviceUnavailable("voice processing could not start: \(error)"))
            }
        }
        processing.withLock { $0 = processor }
        // Each install closes its endpoint when refused (the call's audio was closed meanwhile).
        let sourceKept = source.install(endpoint, processing: processor)
        let sinkKept = sink.install(output, processing: processor)
        guard sourceKept, sinkKept else {
            source.close()
            sink.close()
            throw .voice(.deviceUnavailable("the call's audio was already released"))
        }
        logger.debug(
            "audio: \(endpoint.name) → call → \(output.name); voice processing "
                + (components.isEnabled
                    ? "on (echo \(components.echoCancellation), noise \(components.noiseSuppression), gain \(components.gainControl))"
                    : "off"))
    }

    /// Whether a finite input (WAV file without loop, finished app stream) has been played to its end.
    var inputFinished: Bool { source.endOfStream }

    /// What has gone through the endpoints so far.
    var counters: CallAudioCounters {
        var counters = meters.counters
        let processor = processing.withLock { $0 }
        counters.isProcessingAudio = processor != nil
        counters.processedFrames = processor?.processed ?? 0
        if let device = source.endpoint as? DeviceSource {
            let figures = device.counters
            counters.inputDeviceSamples = figures.samples
            counters.inputUnderruns = figures.underruns
            counters.inputOverruns = figures.overruns
        }
        if let file = sink.endpoint as? WAVFileSink { counters.outputError = file.error?.description }
        if let device = sink.endpoint as? DeviceSink {
            let figures = device.counters
            counters.outputDeviceSamples = figures.samples
            counters.outputUnderruns = figures.underruns
            counters.outputOverruns = figures.overruns
        }
        return counters
    }

    /// Closes the endpoints (device streams, WAV headers, app streams). Idempotent; the audio cannot be
    /// opened again afterwards.
    func close() {
        phase.withLock { $0 = .closed }
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
        .voice(.deviceUnavailable("this call does not use an open audio device for its \(direction)"))
    }

    private static func openSource(_ input: AudioInput) throws(PolyError) -> any AudioFrameSource {
        do {
            switch input {
            case .defaultDevice: return try DeviceSource()
            case .device(let query):
                return try DeviceSource(device: AudioDevices.select(byIdOrName: query, for: .input))
            case .file(let url, let loop): return try WAVFileSource(url: url, loop: loop, ending: .end)
            case .buffer(let stream, let rate): return try BufferSource(stream: stream, sampleRate: rate)
            case .frames(let source): return source
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
            case .frames(let sink): return sink
            case .null: return NullSink()
            }
        } catch {
            throw .voice(.deviceUnavailable("\(output.displayName): \(error)"))
        }
    }
}

extension AudioInput {
    /// Files and app buffers and frame sources hold audio that must not be lost before the call connects.
    var isFinite: Bool {
        switch self {
        case .file, .buffer, .frames: true
        case .defaultDevice, .device, .null: false
        }
    }
}
