// The script agent's timing: how long it waits before answering, how long it talks on when talked over,
// and a misbehaving mode that stops on any sound. Conversation tests (`polyvoice test`) check what they
// measure against this known timing and the agent's own timeline.
import PolyAudio
import PolyCore

/// When the `script:` agent answers and yields (`AgentSpec.script(directory:timing:)`).
public struct ScriptTiming: Sendable, Equatable, CustomStringConvertible {
    /// How long the agent keeps talking after the caller started talking over it.
    public enum Yield: Sendable, Equatable {
        /// Stops this long after the caller's speech began, if the caller is still talking then (as its VAD
        /// sees it, hangover included); a caller turn that ended earlier was a backchannel and is talked over.
        case after(Duration)
        /// Never stops for the caller.
        case never
    }

    /// nil: the reply starts as soon as the VAD ends the caller's turn (its hangover, 300 ms, after the
    /// end of the last voiced frame). A value: the reply starts exactly this long after the end of the
    /// caller's last voiced frame as the agent heard it; at least the hangover, as the agent cannot know the
    /// turn ended before that.
    public var replyLatency: Duration?
    /// Today's default: stop at once.
    public var yield: Yield
    /// Stops at once on any frame louder than the VAD's absolute threshold (a cough, a click, "mm-hmm"),
    /// whatever `yield` says: an agent that yields falsely, to test a false-yield detector.
    public var falseYield: Bool

    public init(replyLatency: Duration? = nil, yield: Yield = .after(.zero), falseYield: Bool = false) {
        self.replyLatency = replyLatency
        self.yield = yield
        self.falseYield = falseYield
    }

    /// The script agent's behaviour before this option existed.
    public static let immediate = ScriptTiming()

    /// The silence the VAD needs to end a turn: its hangover (`VoiceActivityDetector.Configuration`).
    public static func endOfTurnSilence(vad: VoiceActivityDetector.Configuration = .init()) -> Duration {
        AgentAudio.frameDuration * vad.hangoverFrames
    }

    /// The longest latency or yield accepted.
    public static let maximum = Duration.seconds(60)

    /// Throws if a value is out of range or the options contradict each other.
    public func validate(vad: VoiceActivityDetector.Configuration = .init()) throws(AgentError) {
        let minimum = Self.endOfTurnSilence(vad: vad)
        if let replyLatency, replyLatency < minimum || replyLatency > Self.maximum {
            throw .invalidSpec(
                "reply latency must be \(Self.milliseconds(minimum))-\(Self.milliseconds(Self.maximum)) ms "
                    + "(the agent's VAD ends a turn after \(Self.milliseconds(minimum)) ms of silence), "
                    + "not \(Self.milliseconds(replyLatency)) ms")
        }
        if case .after(let after) = yield, after < .zero || after > Self.maximum {
            throw .invalidSpec(
                "yield must be 0-\(Self.milliseconds(Self.maximum)) ms or never, not \(Self.milliseconds(after)) ms")
        }
        if falseYield, yield != .after(.zero) {
            throw .invalidSpec("a false-yielding agent stops at once on any sound: it takes no yield time")
        }
    }

    /// Parses the CLI's `--reply-latency MS`, `--yield-ms MS|never` and `--false-yield`, then validates.
    public init(replyLatency: String?, yield: String?, falseYield: Bool) throws(AgentError) {
        var timing = ScriptTiming(falseYield: falseYield)
        if let replyLatency {
            guard let ms = Int(replyLatency) else {
                throw .invalidSpec("--reply-latency must be a whole number of milliseconds, not '\(replyLatency)'")
            }
            timing.replyLatency = .milliseconds(ms)
        }
        if let yield {
            if yield == "never" {
                timing.yield = .never
            } else {
                guard let ms = Int(yield) else {
                    throw .invalidSpec("--yield-ms must be a whole number of milliseconds or never, not '\(yield)'")
                }
                timing.yield = .after(.milliseconds(ms))
            }
        }
        try timing.validate()
        self = timing
    }

    public var description: String {
        var parts: [String] = []
        if let replyLatency { parts.append("reply latency \(Self.milliseconds(replyLatency)) ms") }
        switch yield {
        case .after(.zero): break
        case .after(let after): parts.append("yields after \(Self.milliseconds(after)) ms")
        case .never: parts.append("never yields")
        }
        if falseYield { parts.append("false yield") }
        return parts.isEmpty ? "immediate" : parts.joined(separator: ", ")
    }

    static func milliseconds(_ duration: Duration) -> Int { Int(duration.totalNanoseconds / 1_000_000) }
}
