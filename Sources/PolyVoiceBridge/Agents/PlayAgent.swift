// `play:FILE` / `loop:FILE`: plays a WAV to the caller (once or looped) and records the caller.
import PolyCore

/// Plays preloaded 48 kHz mono samples, then silence (or from the start again when looping).
public final class PlayAgent: BridgeAgent {
    private let samples: [Int16]
    private let loop: Bool
    private var position = 0
    private let recorder: CallRecorder?

    public init(samples: [Int16], loop: Bool, recorder: CallRecorder? = nil) {
        self.samples = samples
        self.loop = loop
        self.recorder = recorder
    }

    /// Whether a non-looping file has been played to the end.
    public var finishedPlaying: Bool { !loop && position >= samples.count }

    public func process(
        inbound: UnsafeBufferPointer<Int16>, outbound: UnsafeMutableBufferPointer<Int16>, at now: Instant
    ) {
        recorder?.append(inbound)
        for index in 0..<outbound.count {
            if position >= samples.count, loop, !samples.isEmpty { position = 0 }
            if position < samples.count {
                outbound[index] = samples[position]
                position += 1
            } else {
                outbound[index] = 0
            }
        }
    }

    public func pollEvent() -> AgentEvent? { nil }

    public func finish(at now: Instant) throws { try recorder?.finish(sampleRate: mediaProfile.sampleRate) }
}
