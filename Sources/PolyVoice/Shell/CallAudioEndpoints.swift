// The media's microphone and speaker: wrappers that exist from the call's creation and receive their
// endpoints (device, file, app buffer, null) when the call starts.
import PolyAudio
import PolyCore
import Synchronization

/// An endpoint and the voice processing that goes with it, installed once at `start()`.
private struct Installed<Endpoint: Sendable>: @unchecked Sendable {
    // @unchecked: the processing object is used from the audio clock thread only (see CallAudioProcessing).
    let endpoint: Endpoint
    let processing: CallAudioProcessing?
}

/// Where a source's or sink's endpoint is installed once and closed once.
private final class EndpointSlot<Endpoint: Sendable>: Sendable {
    private let installed = Mutex<Installed<Endpoint>?>(nil)
    private let closed = Atomic<Bool>(false)
    private let closeEndpoint: @Sendable (Endpoint) -> Void

    init(close: @escaping @Sendable (Endpoint) -> Void) { closeEndpoint = close }

    var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// Installs `endpoint`; false (and `endpoint` is closed) if the slot was closed or already filled.
    func install(_ endpoint: Endpoint, processing: CallAudioProcessing?) -> Bool {
        let kept = installed.withLock { slot in
            guard !isClosed, slot == nil else { return false }
            slot = Installed(endpoint: endpoint, processing: processing)
            return true
        }
        if !kept { closeEndpoint(endpoint) }
        return kept
    }

    var endpoint: Endpoint? { installed.withLock { $0?.endpoint } }

    /// `body` with the installed endpoint and its processing, or nil if there is none yet.
    func withInstalled<Result>(_ body: (Installed<Endpoint>?) -> Result) -> Result {
        installed.withLock { body($0) }
    }

    /// Closes the endpoint once. Idempotent.
    func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if let endpoint { closeEndpoint(endpoint) }
    }
}

/// The media's microphone: reads the endpoint, cleans the frame (echo, noise, gain) and measures its
/// level. Silence until an endpoint is installed and after `close`. Audio clock thread only.
final class MeteredSource: AudioFrameSource, @unchecked Sendable {
    private let slot = EndpointSlot<any AudioFrameSource> { $0.close() }
    private let meters: CallAudioMeters
    private let holdUntilConnected: Bool
    private let placeholder: String

    /// - Parameters:
    ///   - placeholder: the name until an endpoint is installed.
    ///   - holdUntilConnected: finite inputs are not read before the agent's audio is connected.
    init(placeholder: String, meters: CallAudioMeters, holdUntilConnected: Bool) {
        self.placeholder = placeholder
        self.meters = meters
        self.holdUntilConnected = holdUntilConnected
    }

    /// Starts reading `endpoint`; false (and `endpoint` is closed) once this source was closed.
    func install(_ endpoint: any AudioFrameSource, processing: CallAudioProcessing?) -> Bool {
        slot.install(endpoint, processing: processing)
    }

    var endpoint: (any AudioFrameSource)? { slot.endpoint }
    var name: String { endpoint?.name ?? placeholder }
    var endOfStream: Bool { endpoint?.endOfStream ?? false }

    /// Always fills the whole frame (silence where there is no audio) and reports it all as audio.
    func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Int {
        // A device is read (and its audio dropped) so that its ring does not fill with stale audio.
        guard !slot.isClosed, !holdUntilConnected || meters.isCaptureOpen else {
            frame.update(repeating: 0)
            return frame.count
        }
        let real = slot.withInstalled { installed -> Int in
            guard let installed else { return -1 }
            let real = installed.endpoint.read(into: frame)
            if real < frame.count, real >= 0 {
                UnsafeMutableBufferPointer(rebasing: frame[real...]).update(repeating: 0)
            }
            // Processed even before the call connects, so the canceller has converged when it does.
            installed.processing?.captured(frame)
            return real
        }
        if real > 0 { meters.recordCaptured(samples: real) }
        guard real >= 0, meters.isCaptureOpen else {
            frame.update(repeating: 0)
            return frame.count
        }
        meters.recordInputSent()
        meters.recordInput(dBFS: LevelMeter.measure(UnsafeBufferPointer(frame)).rmsDBFS)
        return frame.count
    }

    /// Closes the endpoint (device stream, file, app stream). Idempotent.
    func close() {
        slot.close()
    }
}

/// The media's speaker: silence while the agent's audio is paused (barge-in); what is played is the
/// echo canceller's far-end reference and is measured. Audio clock thread only.
final class GatedSink: AudioFrameSink, @unchecked Sendable {
    private let slot = EndpointSlot<any AudioFrameSink> { $0.close() }
    private let meters: CallAudioMeters
    private let placeholder: String
    /// One frame of silence, allocated once (the clock thread must not allocate).
    private let silence = UnsafeMutableBufferPointer<Int16>.allocate(capacity: AudioFrameFormat.samplesPerFrame)

    init(placeholder: String, meters: CallAudioMeters) {
        self.placeholder = placeholder
        self.meters = meters
        silence.initialize(repeating: 0)
    }

    deinit { silence.deallocate() }

    /// Starts writing to `endpoint`; false (and `endpoint` is closed) once this sink was closed.
    func install(_ endpoint: any AudioFrameSink, processing: CallAudioProcessing?) -> Bool {
        slot.install(endpoint, processing: processing)
    }

    var endpoint: (any AudioFrameSink)? { slot.endpoint }
    var name: String { endpoint?.name ?? placeholder }

    func write(_ frame: UnsafeBufferPointer<Int16>) {
        guard !slot.isClosed else { return }
        let paused = meters.isPlayoutPaused
        let played = paused ? UnsafeBufferPointer(rebasing: silence[0..<min(frame.count, silence.count)]) : frame
        let wrote = slot.withInstalled { installed -> Bool in
            guard let installed else { return false }
            installed.endpoint.write(played)
            installed.processing?.played(played)
            return true
        }
        guard wrote else { return }
        meters.recordPlayed(samples: played.count, at: .now())
        meters.recordOutput(dBFS: paused ? AudioLevel.floorDBFS : LevelMeter.measure(played).rmsDBFS)
    }

    /// Finishes the endpoint (WAV header, app stream end, device closed). Idempotent.
    func close() {
        slot.close()
    }
}
