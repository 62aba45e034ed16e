// Levels and the playout gate shared between the audio clock thread and the call shell, lock-free.
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

/// Written by the audio clock thread once per frame, read by the shell; no locks, no allocation.
final class CallAudioMeters: Sendable {
    private let input = Atomic<UInt64>((-120.0).bitPattern)
    private let output = Atomic<UInt64>((-120.0).bitPattern)
    private let paused = Atomic<Bool>(false)
    private let captureOpen = Atomic<Bool>(false)

    func recordInput(dBFS: Double) { input.store(dBFS.bitPattern, ordering: .relaxed) }
    func recordOutput(dBFS: Double) { output.store(dBFS.bitPattern, ordering: .relaxed) }

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
