// Sans-IO turn detection: fed the frames the caller sent (tagged with the step they belong to) and the
// frames it heard, each with its sample index on the one clock; gives caller and agent turns. No clock,
// no I/O: tests feed synthetic audio whose edges they know to the sample.
import PolyAudio

public struct TurnTracker: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// A sample at least this loud (absolute) is voiced; edges are refined to such samples.
        public var voicedAmplitude: Int16
        /// Agent speech separated by less than this is one turn (pauses between words and sentences).
        public var agentMergeGapMs: Double
        /// The agent's frames go through this VAD (no hangover: the tracker merges gaps itself).
        public var vad: VoiceActivityDetector.Configuration

        public init(
            voicedAmplitude: Int16 = 160, agentMergeGapMs: Double = 500,
            vad: VoiceActivityDetector.Configuration = .init(thresholdDBFS: -45, marginDB: 10, hangoverFrames: 0)
        ) {
            self.voicedAmplitude = voicedAmplitude
            self.agentMergeGapMs = agentMergeGapMs
            self.vad = vad
        }
    }

    public let configuration: Configuration
    private var vad: VoiceActivityDetector
    private var mergeGap: Int
    public private(set) var callerTurns: [MeasuredTurn] = []
    /// Closed agent turns; `openAgentTurn` is the one that may still go on.
    public private(set) var agentTurns: [MeasuredTurn] = []
    public private(set) var openAgentTurn: MeasuredTurn?
    /// The caller turn being sent (its step); closed when another step's audio or untagged audio follows.
    private var openCallerStep: Int?
    /// Samples heard so far (the index after the last heard frame).
    public private(set) var heardEnd = 0
    public private(set) var sentEnd = 0
    /// The first voiced sample of the previous heard frame, when that frame was quiet but voiced to its end.
    private var previousTail: Int?

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        vad = VoiceActivityDetector(configuration: configuration.vad)
        mergeGap = ConversationClock.samples(milliseconds: configuration.agentMergeGapMs)
    }

    /// A frame the caller sent at `index`; `step`/`kind` name the script step whose audio it carries (nil: silence).
    public mutating func sent(_ frame: UnsafeBufferPointer<Int16>, at index: Int, step: Int?, kind: String?) {
        sentEnd = max(sentEnd, index + frame.count)
        if step != openCallerStep { openCallerStep = nil }
        guard let step, let first = firstVoiced(frame), let last = lastVoiced(frame) else { return }
        if openCallerStep == step, let lastIndex = callerTurns.indices.last {
            callerTurns[lastIndex].endSample = index + last + 1
        } else {
            callerTurns.append(
                MeasuredTurn(
                    speaker: .caller, startSample: index + first, endSample: index + last + 1, kind: kind, step: step))
            openCallerStep = step
        }
    }

    /// A frame the caller heard (the agent as played) at `index`.
    ///
    /// The VAD decides per 20 ms frame; edges are then refined to voiced samples, looking into the frame
    /// before an onset and the frame after the last loud one, so a word that starts or ends near a frame
    /// boundary (too little of it in that frame for the VAD) still gets its sample-exact edge.
    public mutating func heard(_ frame: UnsafeBufferPointer<Int16>, at index: Int) {
        heardEnd = max(heardEnd, index + frame.count)
        let loud = vad.process(frame)
        let first = firstVoiced(frame)
        let last = lastVoiced(frame)
        defer {
            // A quiet frame whose voice runs to its end may be the start of the next turn.
            previousTail =
                !loud && last.map { $0 >= frame.count - Self.edgeSlack } == true ? first.map { index + $0 } : nil
        }
        if var open = openAgentTurn, index - open.endSample >= mergeGap {
            open.endSample = min(open.endSample, index)
            agentTurns.append(open)
            openAgentTurn = nil
        }
        guard loud else {
            // The quiet tail of the last loud frame's word.
            if let open = openAgentTurn, let first, let last, open.endSample >= index - Self.edgeSlack,
                first <= Self.edgeSlack
            {
                openAgentTurn?.endSample = index + last + 1
            }
            return
        }
        let start = previousTail ?? index + (first ?? 0)
        let end = index + (last ?? (frame.count - 1)) + 1
        if openAgentTurn == nil {
            openAgentTurn = MeasuredTurn(speaker: .agent, startSample: start, endSample: end)
        } else {
            openAgentTurn?.endSample = end
        }
    }

    /// Samples of silence allowed between a voiced edge and a frame boundary for the edge to carry over (1 ms).
    static let edgeSlack = 48

    /// Whether agent speech was heard within the last `withinMs` (it is talking now, as far as the caller knows).
    public func agentTalking(withinMs: Double = 100) -> Bool {
        guard let open = openAgentTurn else { return false }
        return heardEnd - open.endSample <= ConversationClock.samples(milliseconds: withinMs)
    }

    /// The end of the last agent voice heard, if any.
    public var lastAgentVoiceEnd: Int? { openAgentTurn?.endSample ?? agentTurns.last?.endSample }

    /// Every agent turn so far, the open one last.
    public var allAgentTurns: [MeasuredTurn] { agentTurns + (openAgentTurn.map { [$0] } ?? []) }

    /// The first agent turn, closed or open, that `predicate` accepts; builds no array (the script asks
    /// every frame while it waits for the agent).
    public func firstAgentTurn(where predicate: (MeasuredTurn) -> Bool) -> MeasuredTurn? {
        agentTurns.first(where: predicate) ?? openAgentTurn.flatMap { predicate($0) ? $0 : nil }
    }

    /// Closes what is open; the turns of both speakers in time order, numbered.
    public func finished() -> [MeasuredTurn] {
        var turns = (callerTurns + allAgentTurns).sorted {
            ($0.startSample, $0.speaker == .caller ? 0 : 1) < ($1.startSample, $1.speaker == .caller ? 0 : 1)
        }
        for index in turns.indices { turns[index].index = index }
        return turns
    }

    private func firstVoiced(_ frame: UnsafeBufferPointer<Int16>) -> Int? {
        let threshold = configuration.voicedAmplitude
        return frame.firstIndex { $0 >= threshold || $0 <= -threshold }
    }

    private func lastVoiced(_ frame: UnsafeBufferPointer<Int16>) -> Int? {
        let threshold = configuration.voicedAmplitude
        return frame.lastIndex { $0 >= threshold || $0 <= -threshold }
    }
}
