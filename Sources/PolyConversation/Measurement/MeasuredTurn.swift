// One turn of a measured conversation, on the caller's clock (48 kHz samples since t = 0, the first frame sent).

/// The clock of every measurement: 48 kHz samples; t = 0 is the first audio frame the caller sent.
public enum ConversationClock {
    public static let sampleRate = 48_000
    public static let samplesPerFrame = 960

    public static func milliseconds(_ samples: Int) -> Double { Double(samples) * 1000 / Double(sampleRate) }
    public static func samples(milliseconds: Double) -> Int {
        Int((milliseconds * Double(sampleRate) / 1000).rounded())
    }
}

public struct MeasuredTurn: Sendable, Equatable {
    public enum Speaker: String, Sendable, Equatable { case caller, agent }

    public var index: Int
    public var speaker: Speaker
    /// First voiced sample (caller: sent; agent: heard).
    public var startSample: Int
    /// One past the last voiced sample.
    public var endSample: Int
    /// Caller turns: the step that said it ("say", "play", "backchannel") and its position in the script.
    public var kind: String?
    public var step: Int?
    /// Agent turns: start minus the end of the caller turn it answers.
    public var responseLatencyMs: Double?
    /// Caller turns: started while the agent was talking. Agent turns: a caller turn (not a backchannel) cut in.
    public var interrupted: Bool?
    /// Caller turns that interrupted: the agent's turn end (as heard) minus this turn's start.
    public var yieldMs: Double?
    /// Backchannels: the agent stopped within `falseYieldWindowMs` of it.
    public var falseYield: Bool?

    public var startMs: Double { ConversationClock.milliseconds(startSample) }
    public var endMs: Double { ConversationClock.milliseconds(endSample) }
    public var durationMs: Double { endMs - startMs }

    public init(
        index: Int = 0, speaker: Speaker, startSample: Int, endSample: Int, kind: String? = nil, step: Int? = nil
    ) {
        self.index = index
        self.speaker = speaker
        self.startSample = startSample
        self.endSample = endSample
        self.kind = kind
        self.step = step
    }
}
