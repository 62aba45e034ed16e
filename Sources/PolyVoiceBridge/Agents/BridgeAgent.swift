// The agent behind a call: 20 ms of caller audio in, 20 ms of agent audio out, plus events.
import PolyCore
import PolyMedia
import PolySignaling

/// Audio format of agents: mono Int16, 20 ms frames, at 48 kHz unless the agent's media profile asks for
/// another Opus rate (`AgentMediaProfile.sampleRate`).
public enum AgentAudio {
    public static let sampleRate = 48_000
    public static let frameSamples = frameSamples(atRate: sampleRate)
    public static let frameDuration = Duration.milliseconds(20)

    /// Samples in one 20 ms frame at `sampleRate`.
    public static func frameSamples(atRate sampleRate: Int) -> Int { sampleRate / 50 }
}

/// Something an agent tells the caller on the events socket.
public enum AgentEvent: Sendable, Equatable {
    /// The caller interrupted the agent: the client stops playing and flushes agent audio.
    case bargeIn
    /// The agent talks again: the client resumes playing.
    case unmute
    /// The client should run a new pull.
    case repull

    /// The events-socket frame.
    public var bridgeEvent: BridgeEvent {
        switch self {
        case .bargeIn: .bargeIn("barge-in")
        case .unmute: .unmute
        case .repull: .repull
        }
    }
}

/// One call's agent. Driven by one thread (the media clock), every 20 ms, in order; never blocks.
public protocol BridgeAgent: AnyObject {
    /// Takes the caller's 20 ms frame at `mediaProfile.sampleRate` (concealment or silence when nothing
    /// arrived) and writes the agent's frame into `outbound` (same size).
    func process(inbound: UnsafeBufferPointer<Int16>, outbound: UnsafeMutableBufferPointer<Int16>, at now: Instant)
    /// The next event to send, if any (called after each `process` until nil).
    func pollEvent() -> AgentEvent?
    /// The call ended: write recordings and timelines.
    func finish(at now: Instant) throws
    /// The media this agent needs (read once, when the call's media is set up).
    var mediaProfile: AgentMediaProfile { get }
    /// The caller sent a DTMF digit (RFC 4733, once per digit), on the same thread as `process`.
    func receiveDTMF(_ dtmf: ReceivedDTMF, at now: Instant)
}

extension BridgeAgent {
    /// By default an agent ignores DTMF (the bridge logs it).
    public func receiveDTMF(_ dtmf: ReceivedDTMF, at now: Instant) {}
}

extension BridgeAgent {
    /// By default an agent gets a client's media (`AgentMediaProfile.standard`).
    public var mediaProfile: AgentMediaProfile { .standard }
}

extension BridgeAgent {
    /// Convenience for tests and non-realtime callers: processes one frame from arrays.
    public func process(_ inbound: [Int16], at now: Instant) -> [Int16] {
        var outbound = [Int16](repeating: 0, count: inbound.count)
        inbound.withUnsafeBufferPointer { input in
            outbound.withUnsafeMutableBufferPointer { output in process(inbound: input, outbound: output, at: now) }
        }
        return outbound
    }
}
