// A conversation test as the user wrote it: who the caller is, what it does step by step, what must hold.

/// One scenario file (JSON or YAML), validated. Times are in the units the schema names them in.
public struct Scenario: Sendable, Equatable {
    /// Shown in reports and JUnit test suites.
    public var name: String
    /// espeak-ng voice for `say` and `backchannel` (e.g. "en-us").
    public var voice: String
    /// Speech rate for espeak-ng in words per minute (espeak's default 175).
    public var wordsPerMinute: Int
    /// Call seeds are `seed + call index`; `--seed` overrides it.
    public var seed: UInt64
    /// Network impairment of the call's own packets (parsed and validated; see `ScenarioSupport`).
    public var network: ScenarioNetwork?
    public var steps: [Step]
    public var expect: Expectations
    /// How long the agent must be silent after the last step before the call hangs up (default 1 s).
    public var hangupAfterSilenceSeconds: Double
    /// The file it came from, for messages and reports.
    public var sourceFile: String

    public init(
        name: String, voice: String = "en-us", wordsPerMinute: Int = 175, seed: UInt64 = 1,
        network: ScenarioNetwork? = nil, steps: [Step], expect: Expectations = Expectations(),
        hangupAfterSilenceSeconds: Double = 1, sourceFile: String = "<memory>"
    ) {
        self.name = name
        self.voice = voice
        self.wordsPerMinute = wordsPerMinute
        self.seed = seed
        self.network = network
        self.steps = steps
        self.expect = expect
        self.hangupAfterSilenceSeconds = hangupAfterSilenceSeconds
        self.sourceFile = sourceFile
    }
}

/// One step of the caller's script.
public struct Step: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// Speak text with espeak-ng.
        case say(String)
        /// Play a WAV file (any rate; resolved against the scenario's folder).
        case play(String)
        /// Send silence for this many seconds.
        case silence(seconds: Double)
        /// Wait until the agent has spoken and then been silent for `settleSeconds`; fail at `timeoutSeconds`.
        case waitForAgent(timeoutSeconds: Double, settleSeconds: Double)
        /// A short word said while the agent talks; the agent should keep talking.
        case backchannel(String)
        /// DTMF digits (0-9, *, #, A-D).
        case dtmf(String)
    }

    public var action: Action
    /// Start this step that long after the agent's reply started (as heard): a barge-in.
    public var bargeInAfterMs: Int?
    /// For `backchannel`: say it that long after the agent's reply started (default 800 ms).
    public var afterMs: Int?
    /// Where it is in the file (`steps[3]`), for messages.
    public var path: String

    public init(_ action: Action, bargeInAfterMs: Int? = nil, afterMs: Int? = nil, path: String = "steps[?]") {
        self.action = action
        self.bargeInAfterMs = bargeInAfterMs
        self.afterMs = afterMs
        self.path = path
    }

    /// The name used in reports ("say", "wait_for_agent", …).
    public var kind: String {
        switch action {
        case .say: "say"
        case .play: "play"
        case .silence: "silence_s"
        case .waitForAgent: "wait_for_agent"
        case .backchannel: "backchannel"
        case .dtmf: "dtmf"
        }
    }
}

/// The schema's `network` block: loss, bursts, delay, jitter and outages, seeded.
public struct ScenarioNetwork: Sendable, Equatable {
    public struct Direction: Sendable, Equatable {
        /// Packet loss probability, 0...1.
        public var loss: Double = 0
        /// Mean length of a loss burst in packets (1: independent losses).
        public var burst: Double = 1
        public var delayMs: Double = 0
        public var jitterMs: Double = 0
        /// Intervals in seconds of call time during which every packet is lost.
        public var outages: [ClosedRange<Double>] = []

        public init() {}
    }

    /// Applied to the caller's packets (uplink).
    public var send: Direction
    /// Applied to the agent's packets as they arrive (downlink).
    public var receive: Direction
    public var seed: UInt64?

    public init(send: Direction, receive: Direction, seed: UInt64? = nil) {
        self.send = send
        self.receive = receive
        self.seed = seed
    }
}

/// The schema's `expect` block. Nil: not checked.
public struct Expectations: Sendable, Equatable {
    public struct Latency: Sendable, Equatable {
        public var max: Double?
        public var p95Max: Double?
        public var p50Max: Double?
        public var min: Double?

        public init(max: Double? = nil, p95Max: Double? = nil, p50Max: Double? = nil, min: Double? = nil) {
            self.max = max
            self.p95Max = p95Max
            self.p50Max = p50Max
            self.min = min
        }
    }

    public var responseLatencyMs: Latency?
    /// Every barge-in: the agent stopped (as heard) within this many ms of the caller starting.
    public var agentYieldsWithinMs: Double?
    /// No backchannel made the agent stop.
    public var noFalseYield: Bool?
    /// The agent said something.
    public var agentSpeaks: Bool?
    /// No silence longer than this when a reply was due (default rule: dead air is > 2 s).
    public var maxDeadAirMs: Double?

    public init(
        responseLatencyMs: Latency? = nil, agentYieldsWithinMs: Double? = nil, noFalseYield: Bool? = nil,
        agentSpeaks: Bool? = nil, maxDeadAirMs: Double? = nil
    ) {
        self.responseLatencyMs = responseLatencyMs
        self.agentYieldsWithinMs = agentYieldsWithinMs
        self.noFalseYield = noFalseYield
        self.agentSpeaks = agentSpeaks
        self.maxDeadAirMs = maxDeadAirMs
    }
}
