// An agent with exactly known timing for the sans-IO tests: it hears the caller `pathDelay` samples late,
// answers `replyDelay` samples after the caller's last voiced sample, plays a prompt, yields `yieldDelay`
// samples after it hears the caller talk over it (nil: never), and its audio reaches the caller
// `pathDelay` samples later. Everything is sample-exact, so the measurements have a ground truth.
@testable import PolyConversation

/// A buzz (alternating ±amplitude): voiced from its first sample to its last, loud in any frame it touches.
func buzz(_ count: Int, amplitude: Int16 = 8000) -> [Int16] {
    (0..<count).map { $0 % 2 == 0 ? amplitude : -amplitude }
}

struct SimulatedAgent {
    var pathDelay: Int
    var replyDelay: Int
    var promptLength: Int
    var yieldDelay: Int?
    /// Stop on any caller sound (the "false yield" agent).
    var yieldOnAnySound = false
    /// How many replies it has (the script agent has one per prompt file), then it stays silent.
    var prompts = Int.max

    /// Everything the caller sent, by sample index.
    var sent: [Int16] = []
    /// What the agent sends, by its sample index (= caller clock).
    var out: [Int16] = []
    private var lastCallerVoice: Int?
    private var replied: Int?  // the caller voice end already answered
    private var playing: (start: Int, stopAt: Int?)?
    /// Ground truth: (reply start, reply end) on the agent's clock.
    private(set) var truth: [(start: Int, end: Int)] = []

    init(pathDelay: Int, replyDelay: Int, promptLength: Int, yieldDelay: Int?, yieldOnAnySound: Bool = false) {
        self.pathDelay = pathDelay
        self.replyDelay = replyDelay
        self.promptLength = promptLength
        self.yieldDelay = yieldDelay
        self.yieldOnAnySound = yieldOnAnySound
    }

    /// Produces the agent's samples up to (not including) `end`.
    mutating func run(until end: Int) {
        while out.count < end {
            let t = out.count
            let heardIndex = t - pathDelay
            let hearing = heardIndex >= 0 && heardIndex < sent.count && abs(Int(sent[heardIndex])) >= 160
            if hearing { lastCallerVoice = heardIndex }
            var sample: Int16 = 0
            if let current = playing {
                if hearing, current.stopAt == nil, let yieldDelay {
                    playing?.stopAt = t + yieldDelay
                }
                let position = t - current.start
                if position >= promptLength || (current.stopAt.map { t >= $0 } ?? false) {
                    truth.append((current.start, t))
                    playing = nil
                } else {
                    sample = position % 2 == 0 ? 8000 : -8000
                }
            } else if let voice = lastCallerVoice, replied != voice, !hearing, heardIndex - (voice + 1) >= replyDelay,
                truth.count < prompts
            {
                replied = voice
                playing = (t, nil)
                sample = 8000
            }
            out.append(sample)
        }
    }
}

/// Runs a script against the agent: the caller sends `lead` frames ahead of what it has heard, as the shell does.
func converse(_ script: inout ConversationScript, with agent: inout SimulatedAgent, lead: Int = 5, maxSeconds: Int = 60)
    -> Int
{
    let frame = ConversationClock.samplesPerFrame
    var buffer = [Int16](repeating: 0, count: frame)
    for k in 0..<lead {
        buffer.withUnsafeMutableBufferPointer { script.produce(into: $0, at: k * frame) }
        agent.sent += buffer
    }
    var k = 0
    while !script.isFinished && k < maxSeconds * 50 {
        agent.run(until: (k + 1) * frame + agent.pathDelay)
        let start = k * frame
        let heard = (0..<frame).map { i in start + i - agent.pathDelay >= 0 ? agent.out[start + i - agent.pathDelay] : 0
        }
        heard.withUnsafeBufferPointer { script.heard($0, at: start) }
        buffer.withUnsafeMutableBufferPointer { script.produce(into: $0, at: (k + lead) * frame) }
        agent.sent += buffer
        k += 1
    }
    return k * frame
}
