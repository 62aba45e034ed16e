// The script agent's ground truth: every turn as the agent heard and played it, written to
// `<record dir>/<callId>-timeline.json` when the call ends, so a conversation test can check its
// measurements against what the agent really did.

extension ScriptAgent {
    /// One turn of the conversation. Times are seconds of the agent's audio since its first frame (sample
    /// `n` is at `n / sampleRate`): the caller's audio as the agent heard it, and its own as it sent it.
    public struct Turn: Codable, Sendable, Equatable {
        public var speaker: String
        /// Caller: the first voiced frame heard. Agent: the first sample of the reply.
        public var start: Double
        /// Caller: the end of the last voiced frame heard. Agent: the sample after its last.
        public var end: Double?
        /// The prompt's file name (agent turns).
        public var prompt: String?
        /// The caller cut the prompt short (agent turns).
        public var interrupted: Bool?
        /// Agent: why it stopped — "finished" (the prompt ended), "yielded" (to the caller), "hangup".
        public var stop: String?
        /// Agent: the end of the caller turn this reply answers, as heard (`start − callerEnd` is the latency).
        public var callerEnd: Double?
        /// Agent, when it yielded: when the caller's speech (or, false-yielding, any sound) began.
        public var talkedOverAt: Double?
        /// Caller: when the VAD ended the turn (after its hangover).
        public var endOfTurn: Double?
        /// Caller: the turn began while the agent was talking.
        public var overAgent: Bool?
        /// Caller: the agent answers (or answered) it; false for a turn the agent talked through.
        public var answered: Bool?
    }

    /// A DTMF digit the agent received (RFC 4733 telephone-event), on the same clock as the turns.
    public struct ReceivedDigit: Codable, Sendable, Equatable {
        public var digit: String
        public var start: Double
        /// Seconds, from the event's duration field.
        public var duration: Double
    }

    struct Timeline: Encodable {
        var callId: String
        var sampleRate: Int
        var timing: ScriptTiming
        var turns: [Turn]
        var dtmf: [ReceivedDigit]
    }
}

extension ScriptTiming: Encodable {
    private enum CodingKeys: String, CodingKey { case replyLatencyMs, yieldMs, falseYield }

    /// `{"replyLatencyMs": 500 (absent: at the end of turn), "yieldMs": 800 | "never", "falseYield": false}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(replyLatency.map(Self.milliseconds), forKey: .replyLatencyMs)
        switch yield {
        case .after(let after): try container.encode(Self.milliseconds(after), forKey: .yieldMs)
        case .never: try container.encode("never", forKey: .yieldMs)
        }
        try container.encode(falseYield, forKey: .falseYield)
    }
}
