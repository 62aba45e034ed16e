// Levels, sample counts and the playout gate shared between the audio clock thread and the call shell, lock-free.
import PolyAudio
import PolyCore
import Synchronization

/// Microphone and speaker levels of a call, in dBFS (-120 is silence).
public struct CallAudioLevels: Sendable, Hashable {
    /// RMS level of the last 20 ms sent (before mute).
    public var inputDBFS: Double
    /// RMS level of the last 20 ms played.
    public var outputDBFS: Double

    public init(inputDBFS: Double = -120, outputDBFS: Double = -120) {
        self.inputDBFS = inputDBFS
        self.outputDBFS = outputDBFS
    }
}

/// What went through a call's audio endpoints (`PolyCall.audioCounters`).
public struct CallAudioCounters: Sendable, Hashable {
    /// 48 kHz samples of real audio read from the input (not the silence that fills gaps).
    public var capturedSamples: Int
    /// 48 kHz samples written to the output (the agent's audio, and silence while it is paused).
    public var playedSamples: Int
    /// Capture device: samples its real-time callback delivered, at the device's rate (0 without a device).
    public var inputDeviceSamples: Int
    /// Playback device: samples of audio its real-time callback played, at the device's rate.
    public var outputDeviceSamples: Int
    /// Capture device: 20 ms reads that found less than a frame captured (0 without a device).
    public var inputUnderruns: Int
    /// Capture device: samples dropped because its ring was full.
    public var inputOverruns: Int
    /// Playback device: callbacks that ran out of audio and played silence.
    public var outputUnderruns: Int
    /// Playback device: samples dropped because its ring was full or latency had to be cut.
    public var outputOverruns: Int
    /// Echo cancellation, noise suppression and gain control run on the microphone.
    public var isProcessingAudio: Bool
    /// Microphone frames that went through that processing.
    public var processedFrames: Int
    /// `playedSamples` when the first input frame was sent (a finite input is held until the agent's
    /// audio is connected), nil before. Input and output are read and written on the same 20 ms tick, so
    /// output sample `p` and input sample `p - inputStartPlayedSamples` belong to the same instant: an app
    /// that feeds `.buffer` input without gaps can put what it sent and what it heard on one clock.
    public var inputStartPlayedSamples: Int?
    /// The most the call's 20 ms audio clock has been behind real time, in 48 kHz samples, measured at each
    /// frame played since the first input frame was sent. A few milliseconds is scheduling; more means the
    /// process lacked the CPU to keep the pace, and the clock skips what it could not catch up within
    /// 200 ms: timings measured on the audio (`inputStartPlayedSamples`) are then off by up to this much.
    public var clockLagSamples: Int
    /// Why writing a WAV file output failed (the disk is full, …), nil while it works. Recording stopped
    /// at that point and the file holds a valid WAV of what was written; the call itself goes on.
    public var outputError: String?

    public init(
        capturedSamples: Int = 0, playedSamples: Int = 0, inputDeviceSamples: Int = 0, outputDeviceSamples: Int = 0,
        inputUnderruns: Int = 0, inputOverruns: Int = 0,
        outputUnderruns: Int = 0, outputOverruns: Int = 0, isProcessingAudio: Bool = false, processedFrames: Int = 0,
        inputStartPlayedSamples: Int? = nil, clockLagSamples: Int = 0
    ) {
        self.capturedSamples = capturedSamples
        self.playedSamples = playedSamples
        self.inputDeviceSamples = inputDeviceSamples
        self.outputDeviceSamples = outputDeviceSamples
        self.inputUnderruns = inputUnderruns
        self.inputOverruns = inputOverruns
        self.outputUnderruns = outputUnderruns
        self.outputOverruns = outputOverruns
        self.isProcessingAudio = isProcessingAudio
        self.processedFrames = processedFrames
        self.inputStartPlayedSamples = inputStartPlayedSamples
        self.clockLagSamples = clockLagSamples
    }
}

/// Written by the audio clock thread once per frame, read by the shell; no locks, no allocation.
final class CallAudioMeters: Sendable {
    private let input = Atomic<UInt64>((-120.0).bitPattern)
    private let output = Atomic<UInt64>((-120.0).bitPattern)
    private let paused = Atomic<Bool>(false)
    private let captureOpen = Atomic<Bool>(false)
    private let captured = Atomic<Int>(0)
    private let played = Atomic<Int>(0)
    /// `played` when the first input frame went out; -1 before.
    private let inputStart = Atomic<Int>(-1)
    /// Where the lag is measured from (`Instant` nanoseconds and `played` then): every frame played re-anchors
    /// it until the first input frame is sent, so set-up (DTLS on the loop) does not count. Then the
    /// largest lag of the played samples behind the real time since the anchor.
    private let anchorNanoseconds = Atomic<Int64>(noAnchor)
    private static let noAnchor = Int64.min
    private let anchorPlayed = Atomic<Int>(0)
    private let maxClockLag = Atomic<Int>(0)

    func recordInput(dBFS: Double) { input.store(dBFS.bitPattern, ordering: .relaxed) }
    func recordOutput(dBFS: Double) { output.store(dBFS.bitPattern, ordering: .relaxed) }

    func recordCaptured(samples: Int) { captured.add(samples, ordering: .relaxed) }

    /// Counts `samples` written at `now` (the sink's writer thread only) and how far the played samples,
    /// before these, are behind the time elapsed since the anchor.
    func recordPlayed(samples: Int, at now: Instant) {
        let before = played.add(samples, ordering: .relaxed).oldValue
        let anchor = anchorNanoseconds.load(ordering: .relaxed)
        guard inputStart.load(ordering: .relaxed) >= 0, anchor != Self.noAnchor else {
            anchorNanoseconds.store(now.nanoseconds, ordering: .relaxed)
            anchorPlayed.store(before, ordering: .relaxed)
            return
        }
        // Through microseconds: no overflow in any call's lifetime.
        let elapsed = (now.nanoseconds - anchor) / 1_000 * Int64(AudioFrameFormat.sampleRate) / 1_000_000
        let lag = Int(elapsed) - (before - anchorPlayed.load(ordering: .relaxed))
        if lag > maxClockLag.load(ordering: .relaxed) { maxClockLag.store(lag, ordering: .relaxed) }
    }

    /// Called for every input frame that is sent; keeps the output position of the first one.
    func recordInputSent() {
        guard inputStart.load(ordering: .relaxed) < 0 else { return }
        inputStart.store(played.load(ordering: .relaxed), ordering: .relaxed)
    }

    /// The sample counts (the device and processing figures are filled in by `CallAudio`).
    var counters: CallAudioCounters {
        CallAudioCounters(
            capturedSamples: captured.load(ordering: .relaxed), playedSamples: played.load(ordering: .relaxed),
            inputStartPlayedSamples: { $0 < 0 ? nil : $0 }(inputStart.load(ordering: .relaxed)),
            clockLagSamples: maxClockLag.load(ordering: .relaxed))
    }

    var levels: CallAudioLevels {
        CallAudioLevels(
            inputDBFS: Double(bitPattern: input.load(ordering: .relaxed)),
            outputDBFS: Double(bitPattern: output.load(ordering: .relaxed)))
    }

    /// Finite inputs (files, app buffers) are held back until the agent's audio is connected, so that
    /// nothing is sent into a call that cannot answer yet.
    var isCaptureOpen: Bool {
        get { captureOpen.load(ordering: .relaxed) }
        set { captureOpen.store(newValue, ordering: .relaxed) }
    }

    /// The agent's audio is paused (barge-in): the sink gets silence.
    var isPlayoutPaused: Bool {
        get { paused.load(ordering: .relaxed) }
        set { paused.store(newValue, ordering: .relaxed) }
    }
}
