// `script:DIR`: a turn-taking agent. Prompt N plays after the caller's Nth answered turn ends (VAD), after
// the configured reply latency; the caller talking over a prompt makes it yield (at once, after a set time,
// or never), announced with barge-in, and the next prompt starts with unmute.
//
// Its clock is its audio: frame n of the caller's audio covers samples [n·F, (n+1)·F), as does frame n of
// its own, so a reply can start or stop at any sample and tests in virtual time can assert exactly which.
import FoundationEssentials
import PolyAudio
import PolyCore
import PolyMedia

/// A scripted voice agent for tests: listens, answers each caller turn with the next prompt.
public final class ScriptAgent: BridgeAgent {
    private let prompts: [(name: String, samples: [Int16])]
    private var vad: VoiceActivityDetector
    public let timing: ScriptTiming
    private let callID: String
    private let timelineURL: URL?
    private let recorder: CallRecorder?
    private let sampleRate: Int
    /// Samples between the end of the last voiced frame and the VAD ending the turn.
    private let hangoverSamples: Int
    private let latencySamples: Int?
    private let yieldSamples: Int?

    private var origin: Instant?
    /// The first sample of the current frame (both directions).
    private var clock = 0
    private var nextPrompt = 0
    /// The prompt being played, the position in it and its turn.
    private var playing: (index: Int, position: Int, turn: Int)?
    /// A reply waiting for its latency: the sample it starts at and the caller turn it answers.
    private var pendingReply: (due: Int, callerEnd: Int, turn: Int)?
    /// The caller talked over the prompt: the agent stops at this sample if the caller still talks then.
    private var yieldAt: (sample: Int, talkedOverAt: Int)?
    /// The end of the last frame above the VAD's threshold (the VAD itself holds a turn open for its hangover).
    private var lastVoicedEnd = 0
    /// A caller silent this long when a yield comes due has stopped: it was a backchannel, not a barge-in
    /// (longer than the gaps between words, shorter than the VAD's hangover).
    private let backchannelGapSamples: Int
    private var callerTurn: Int?
    /// The caller barged in: the client is muted until we send unmute.
    private var muted = false
    private var events: [AgentEvent] = []
    public private(set) var turns: [Turn] = []
    public private(set) var digits: [ReceivedDigit] = []

    /// `timing` should be valid (`ScriptTiming.validate`); a latency below the VAD's hangover is raised to it.
    public init(
        prompts: [(name: String, samples: [Int16])], callID: String, timing: ScriptTiming = .immediate,
        timelineDirectory: URL? = nil, recorder: CallRecorder? = nil,
        vad: VoiceActivityDetector.Configuration = .init(), sampleRate: Int = AgentAudio.sampleRate
    ) {
        self.prompts = prompts
        self.callID = callID
        self.timing = timing
        self.timelineURL = timelineDirectory?.appendingPathComponent("\(callID)-timeline.json")
        self.recorder = recorder
        self.vad = VoiceActivityDetector(configuration: vad)
        self.sampleRate = sampleRate
        let frame = AgentAudio.frameSamples(atRate: sampleRate)
        hangoverSamples = vad.hangoverFrames * frame
        backchannelGapSamples = sampleRate / 10
        let samples = { (duration: Duration) in Int(duration.totalNanoseconds * Int64(sampleRate) / 1_000_000_000) }
        latencySamples = timing.replyLatency.map { max(samples($0), vad.hangoverFrames * frame) }
        if case .after(let after) = timing.yield { yieldSamples = samples(after) } else { yieldSamples = nil }
        events.reserveCapacity(8)
        turns.reserveCapacity(64)
        digits.reserveCapacity(32)
    }

    /// Whether a prompt is being played.
    public var isTalking: Bool { playing != nil }

    public func process(
        inbound: UnsafeBufferPointer<Int16>, outbound: UnsafeMutableBufferPointer<Int16>, at now: Instant
    ) {
        recorder?.append(inbound)
        if origin == nil { origin = now }
        let frameStart = clock
        let level = LevelMeter.measure(inbound)
        let speech = vad.process(level: level)
        let voiced = level.rmsDBFS > vad.configuration.thresholdDBFS
        if voiced { lastVoicedEnd = frameStart + inbound.count }
        if timing.falseYield, let current = playing, voiced {
            yieldTurn(current.turn, at: frameStart, talkedOverAt: frameStart)
        }
        if speech && callerTurn == nil {
            callerStarted(at: frameStart)
        } else if !speech, let turn = callerTurn {
            callerEnded(turn, endOfTurn: frameStart)
        }
        fill(outbound, from: frameStart)
        clock += outbound.count
    }

    public func pollEvent() -> AgentEvent? { events.isEmpty ? nil : events.removeFirst() }

    public func finish(at now: Instant) throws {
        if let turn = callerTurn { turns[turn].end = seconds(clock) }
        if let current = playing { closeAgentTurn(current.turn, at: clock, stop: "hangup", interrupted: false) }
        callerTurn = nil
        playing = nil
        try recorder?.finish(sampleRate: mediaProfile.sampleRate)
        guard let timelineURL else { return }
        try FileManager.default.createDirectory(
            at: timelineURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let timeline = Timeline(callId: callID, sampleRate: sampleRate, timing: timing, turns: turns, dtmf: digits)
        try encoder.encode(timeline).write(to: timelineURL, options: .atomic)
    }

    /// Records the digit on the timeline: its start is when its first packet arrived, on the audio clock.
    public func receiveDTMF(_ dtmf: ReceivedDTMF, at now: Instant) {
        let start = origin.map { (dtmf.start - $0).inSeconds } ?? 0
        digits.append(
            ReceivedDigit(
                digit: dtmf.digit.description, start: start,
                duration: Double(dtmf.durationSamples) / Double(AgentAudio.sampleRate)))
    }

    // MARK: Turn-taking

    private func callerStarted(at sample: Int) {
        let overAgent = playing != nil
        // The caller goes on talking before the reply began: it answers this turn's end instead.
        if let pending = pendingReply {
            turns[pending.turn].answered = false
            pendingReply = nil
        }
        turns.append(Turn(speaker: "caller", start: seconds(sample), overAgent: overAgent ? true : nil))
        callerTurn = turns.count - 1
        if overAgent, !timing.falseYield, let yieldSamples, yieldAt == nil {
            yieldAt = (sample + yieldSamples, sample)
        }
    }

    private func callerEnded(_ turn: Int, endOfTurn: Int) {
        callerTurn = nil
        let callerEnd = max(endOfTurn - hangoverSamples, Int((turns[turn].start * Double(sampleRate)).rounded()))
        turns[turn].end = seconds(callerEnd)
        turns[turn].endOfTurn = seconds(endOfTurn)
        // Still talking: the agent talked through this turn (a backchannel, or it never yields).
        yieldAt = nil
        guard playing == nil, nextPrompt < prompts.count else {
            turns[turn].answered = false
            return
        }
        turns[turn].answered = true
        pendingReply = (latencySamples.map { callerEnd + $0 } ?? endOfTurn, callerEnd, turn)
    }

    private func startPrompt(at sample: Int, answering reply: (due: Int, callerEnd: Int, turn: Int)) {
        pendingReply = nil
        guard nextPrompt < prompts.count else { return }
        turns.append(
            Turn(
                speaker: "agent", start: seconds(sample), prompt: prompts[nextPrompt].name,
                callerEnd: seconds(reply.callerEnd)))
        playing = (nextPrompt, 0, turns.count - 1)
        nextPrompt += 1
        if muted {
            muted = false
            events.append(.unmute)
        }
    }

    private func yieldTurn(_ turn: Int, at sample: Int, talkedOverAt: Int) {
        playing = nil
        yieldAt = nil
        turns[turn].talkedOverAt = seconds(talkedOverAt)
        closeAgentTurn(turn, at: sample, stop: "yielded", interrupted: true)
        muted = true
        events.append(.bargeIn)
    }

    private func closeAgentTurn(_ turn: Int, at sample: Int, stop: String, interrupted: Bool) {
        turns[turn].end = seconds(sample)
        turns[turn].stop = stop
        turns[turn].interrupted = interrupted
    }

    // MARK: Audio

    /// Writes the frame starting at sample `frameStart`: prompt audio where a prompt plays, silence elsewhere;
    /// a due reply starts and a due yield stops at their exact sample.
    private func fill(_ outbound: UnsafeMutableBufferPointer<Int16>, from frameStart: Int) {
        var offset = 0
        while offset < outbound.count {
            let sample = frameStart + offset
            if playing == nil, let reply = pendingReply, reply.due <= sample {
                startPrompt(at: sample, answering: reply)
            }
            guard let current = playing else {
                let silentUntil = pendingReply.map { min(outbound.count, $0.due - frameStart) } ?? outbound.count
                let end = max(silentUntil, offset + 1)
                UnsafeMutableBufferPointer(rebasing: outbound[offset..<end]).update(repeating: 0)
                offset = end
                continue
            }
            if let due = yieldAt, due.sample <= sample {
                if due.sample - lastVoicedEnd >= backchannelGapSamples {
                    yieldAt = nil  // the caller had stopped: talk on
                } else {
                    yieldTurn(current.turn, at: sample, talkedOverAt: due.talkedOverAt)
                }
                continue
            }
            let samples = prompts[current.index].samples
            var end = min(outbound.count, offset + samples.count - current.position)
            if let due = yieldAt { end = min(end, due.sample - frameStart) }
            let count = end - offset
            if count > 0 {
                samples.withUnsafeBufferPointer { prompt in
                    if let target = outbound.baseAddress, let source = prompt.baseAddress {
                        (target + offset).update(from: source + current.position, count: count)
                    }
                }
            }
            offset = end
            if current.position + count >= samples.count {
                playing = nil
                yieldAt = nil
                closeAgentTurn(current.turn, at: frameStart + offset, stop: "finished", interrupted: false)
            } else {
                playing = (current.index, current.position + count, current.turn)
            }
        }
    }

    private func seconds(_ sample: Int) -> Double { Double(sample) / Double(sampleRate) }
}
