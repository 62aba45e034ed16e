// The media's microphone and speaker: wrappers that exist from the call's creation and receive their
// endpoints (device, file, app buffer, null) when the call starts.
import PolyAudio
import Synchronization

/// An endpoint and the voice processing that goes with it, installed once at `start()`.
private struct Installed<Endpoint: Sendable>: @unchecked Sendable {
    // @unchecked: the processing object is used from the audio clock thread only (see CallAudioProcessing).
    let endpoint: Endpoint
    let processing: CallAudioProcessing?
}

/// The media's microphone: reads the endpoint, cleans the frame (echo, noise, gain) and measures its
/// level. Silence until an endpoint is installed and after `close`. Audio clock thread only.
final class MeteredSource: AudioFrameSource, @unchecked Sendable {
    private let installed = Mutex<Installed<any AudioFrameSource>?>(nil)
    private let meters: CallAudioMeters
    private let closed = Atomic<Bool>(false)
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
        let kept = installed.withLock { slot in
            guard !closed.load(ordering: .acquiring), slot == nil else { return false }
            slot = Installed(endpoint: endpoint, processing: processing)
            return true
        }
        if !kept { endpoint.close() }
        return kept
    }

    var endpoint: (any AudioFrameSource)? { installed.withLock { $0?.endpoint } }
    var name: String { endpoint?.name ?? placeholder }
    var endOfStream: Bool { endpoint?.endOfStream ?? false }

    /// Always fills the whole frame (silence where there is no audio) and reports it all as audio.
    func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Int {
        // A device is read (and its audio dropped) so that its ring does not fill with stale audio.
        guard !closed.load(ordering: .acquiring), !holdUntilConnected || meters.isCaptureOpen else {
            frame.update(repeating: 0)
            return frame.count
        }
        let real = installed.withLock { slot -> Int in
            guard let slot else { return -1 }
            let real = slot.endpoint.read(into: frame)
            if real < frame.count, real >= 0 {
                UnsafeMutableBufferPointer(rebasing: frame[real...]).update(repeating: 0)
            }
            // Processed even before the call connects, so the canceller has converged when it does.
            slot.processing?.captured(frame)
            return real
        }
        if real > 0 { meters.recordCaptured(samples: real) }
        guard real >= 0, meters.isCaptureOpen else {
            frame.update(repeating: 0)
            return frame.count
        }
        meters.recordInput(dBFS: LevelMeter.measure(UnsafeBufferPointer(frame)).rmsDBFS)
        return frame.count
    }

    /// Closes the endpoint (device stream, file, app stream). Idempotent.
    func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        installed.withLock { $0 }?.endpoint.close()
    }
}

/// The media's speaker: silence while the agent's audio is paused (barge-in); what is played is the
/// echo canceller's far-end reference and is measured. Audio clock thread only.
final class GatedSink: AudioFrameSink, @unchecked Sendable {
    private let installed = Mutex<Installed<any AudioFrameSink>?>(nil)
    private let meters: CallAudioMeters
    private let closed = Atomic<Bool>(false)
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
        let kept = installed.withLock { slot in
            guard !closed.load(ordering: .acquiring), slot == nil else { return false }
            slot = Installed(endpoint: endpoint, processing: processing)
            return true
        }
        if !kept { endpoint.close() }
        return kept
    }

    var endpoint: (any AudioFrameSink)? { installed.withLock { $0?.endpoint } }
    var name: String { endpoint?.name ?? placeholder }

    func write(_ frame: UnsafeBufferPointer<Int16>) {
        guard !closed.load(ordering: .acquiring) else { return }
        let paused = meters.isPlayoutPaused
        let played = paused ? UnsafeBufferPointer(rebasing: silence[0..<min(frame.count, silence.count)]) : frame
        let wrote = installed.withLock { slot -> Bool in
            guard let slot else { return false }
            slot.endpoint.write(played)
            slot.processing?.played(played)
            return true
        }
        guard wrote else { return }
        meters.recordPlayed(samples: played.count)
        meters.recordOutput(dBFS: paused ? AudioLevel.floorDBFS : LevelMeter.measure(played).rmsDBFS)
    }

    /// Finishes the endpoint (WAV header, app stream end, device closed). Idempotent.
    func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        installed.withLock { $0 }?.endpoint.close()
    }
}
