// Sans-IO caller: the scenario's steps as a frame producer that reacts to what it has heard. The shell
// feeds each heard frame and asks for each frame to send, both by sample index on the one clock; no
// clock, no I/O, so a test drives it with a simulated agent in virtual time.

/// A step with its audio ready (speech synthesized, WAV converted to 48 kHz mono).
public struct PreparedStep: Sendable {
    public var step: Step
    public var audio: [Int16]

    public init(step: Step, audio: [Int16] = []) {
        self.step = step
        self.audio = audio
    }
}

/// How a step went.
public struct StepOutcome: Sendable, Equatable {
    public var index: Int
    public var kind: String
    public var path: String
    /// When it started and ended on the caller's clock.
    public var startMs: Double?
    public var endMs: Double?
    /// For barge-ins and backchannels: when it was meant to start (agent reply start + delay).
    public var scheduledMs: Double?
    /// For DTMF steps: how the call sent the digits ("rfc4733" telephone-events or "inband" tones).
    public var dtmfMethod: String?
    public var failure: String?
}

/// Digits a DTMF step asks the shell to send through the call, and the step that asked.
public struct DTMFRequest: Sendable, Equatable {
    public var step: Int
    public var digits: String
}

public struct ConversationScript: Sendable {
    private enum Phase: Sendable {
        case next(Int)
        case awaitingReply(Int, since: Int, delayMs: Int)
        case playing(Int, position: Int)
        case silence(Int, until: Int)
        case waiting(Int, since: Int, timeout: Int, settle: Int)
        /// The call sends the digits (events or tones); the caller's own audio is silent meanwhile.
        case dtmf(Int, until: Int)
        case tail(since: Int)
        case done
    }

    /// How long the call takes per DTMF digit: the tone (the SDK's default 160 ms) and the 100 ms after it.
    public static let dtmfDigitMs = 260.0
    /// A barge-in or backchannel step gives up when the agent starts no reply within this time.
    public static let replyWaitMs = 10_000.0
    /// After the last step the call goes on at most this long for the agent's last reply.
    public static let tailCapMs = 15_000.0

    public private(set) var tracker: TurnTracker
    public private(set) var outcomes: [StepOutcome]
    private let steps: [PreparedStep]
    private let hangupSilence: Int
    private var phase: Phase = .next(0)
    /// Where the caller's most recent turn started (a reply is an agent turn after it).
    private var lastCallerStart = 0
    /// DTMF the shell has not taken yet (`takeDTMFRequest`).
    private var dtmfRequests: [DTMFRequest] = []

    public init(steps: [PreparedStep], hangupAfterSilenceSeconds: Double = 1, tracker: TurnTracker = TurnTracker()) {
        self.steps = steps
        self.tracker = tracker
        hangupSilence = Int(hangupAfterSilenceSeconds * Double(ConversationClock.sampleRate))
        outcomes = steps.enumerated().map { StepOutcome(index: $0, kind: $1.step.kind, path: $1.step.path) }
    }

    public var isFinished: Bool {
        if case .done = phase { return true }
        return false
    }

    /// The next digits to send through the call, once: the shell sends them as the step begins.
    public mutating func takeDTMFRequest() -> DTMFRequest? {
        dtmfRequests.isEmpty ? nil : dtmfRequests.removeFirst()
    }

    /// How the call sent a DTMF step's digits, or why it could not.
    public mutating func dtmfSent(step: Int, method: String?, failure: String?) {
        guard outcomes.indices.contains(step) else { return }
        outcomes[step].dtmfMethod = method
        if let failure { outcomes[step].failure = failure }
    }

    /// A frame the caller heard at `index` (t = 0 is the first frame sent).
    public mutating func heard(_ frame: UnsafeBufferPointer<Int16>, at index: Int) {
        tracker.heard(frame, at: index)
    }

    /// Fills the frame the caller sends at `index` (silence where the script says nothing).
    public mutating func produce(into frame: UnsafeMutableBufferPointer<Int16>, at index: Int) {
        frame.update(repeating: 0)
        var tag: (step: Int, kind: String)?
        // Several phases may end in one frame (a step with nothing to send); bounded by the step count.
        for _ in 0...(steps.count + 2) {
            guard let done = advance(frame, at: index, tag: &tag) else { break }
            if !done { break }
        }
        tracker.sent(UnsafeBufferPointer(frame), at: index, step: tag?.step, kind: tag?.kind)
    }

    /// One phase's work for this frame; true when the phase ended without using the frame (go on at once).
    private mutating func advance(
        _ frame: UnsafeMutableBufferPointer<Int16>, at index: Int, tag: inout (step: Int, kind: String)?
    ) -> Bool? {
        let ms = ConversationClock.milliseconds
        switch phase {
        case .done: return nil
        case .next(let i):
            guard i < steps.count else {
                phase = .tail(since: index)
                return true
            }
            let step = steps[i].step
            outcomes[i].startMs = ms(index)
            switch step.action {
            case .say, .play, .backchannel:
                if let delay = step.bargeInAfterMs ?? (step.kind == "backchannel" ? step.afterMs ?? 800 : nil) {
                    outcomes[i].startMs = nil
                    phase = .awaitingReply(i, since: index, delayMs: delay)
                } else {
                    begin(i, at: index)
                }
            case .silence(let seconds):
                phase = .silence(i, until: index + Int(seconds * Double(ConversationClock.sampleRate)))
            case .waitForAgent(let timeout, let settle):
                phase = .waiting(
                    i, since: index, timeout: Int(timeout * Double(ConversationClock.sampleRate)),
                    settle: Int(settle * Double(ConversationClock.sampleRate)))
            case .dtmf(let digits):
                dtmfRequests.append(DTMFRequest(step: i, digits: digits))
                let length = ConversationClock.samples(milliseconds: Self.dtmfDigitMs * Double(digits.count))
                phase = .dtmf(i, until: index + length)
            }
            return true
        case .awaitingReply(let i, let since, let delay):
            if let reply = tracker.firstAgentTurn(where: { $0.startSample >= lastCallerStart }) {
                let target = reply.startSample + ConversationClock.samples(milliseconds: Double(delay))
                outcomes[i].scheduledMs = ms(target)
                guard index >= target else { return false }
                outcomes[i].startMs = ms(index)
                begin(i, at: index)
                return true
            }
            if ms(index - since) >= Self.replyWaitMs {
                outcomes[i].startMs = ms(since)
                finish(i, at: index, failure: "the agent started no reply within \(Int(Self.replyWaitMs / 1000)) s")
                return true
            }
            return false
        case .playing(let i, let position):
            let audio = steps[i].audio
            let count = min(frame.count, audio.count - position)
            if count > 0 {
                audio.withUnsafeBufferPointer { source in
                    for k in 0..<count { frame[k] = source[position + k] }
                }
                tag = (i, steps[i].step.kind)
            }
            if position + count >= audio.count {
                finish(i, at: index + count, failure: nil)
                return false  // the rest of this frame stays silent; the next step starts on the next frame
            }
            phase = .playing(i, position: position + count)
            return false
        case .silence(let i, let until), .dtmf(let i, let until):
            guard index >= until else { return false }
            finish(i, at: index, failure: outcomes[i].failure)
            return true
        case .waiting(let i, let since, let timeout, let settle):
            let replied =
                tracker.firstAgentTurn {
                    $0.startSample >= lastCallerStart && $0.endSample > since - ConversationClock.sampleRate
                } != nil
            if replied, let voiceEnd = tracker.lastAgentVoiceEnd, tracker.heardEnd - voiceEnd >= settle {
                finish(i, at: index, failure: nil)
                return true
            }
            if index - since >= timeout {
                let why = replied ? "the agent was still talking" : "the agent did not speak"
                finish(i, at: index, failure: "\(why) after timeout_s \(NodeReader.format(Double(timeout) / 48_000))")
                return true
            }
            return false
        case .tail(let since):
            let quietSince = max(tracker.lastAgentVoiceEnd ?? 0, tracker.callerTurns.last?.endSample ?? 0)
            if tracker.heardEnd - quietSince >= hangupSilence || ms(index - since) >= Self.tailCapMs {
                phase = .done
            }
            return nil
        }
    }

    private mutating func begin(_ i: Int, at index: Int) {
        // A backchannel asks for no reply of its own: a wait after it waits for the reply it was said in.
        if steps[i].step.kind != "backchannel" { lastCallerStart = index }
        phase = .playing(i, position: 0)
    }

    private mutating func finish(_ i: Int, at index: Int, failure: String?) {
        outcomes[i].endMs = ConversationClock.milliseconds(index)
        outcomes[i].failure = failure
        phase = .next(i + 1)
    }
}
