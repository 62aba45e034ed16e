// `script:DIR`: a turn-taking agent. Prompt N plays after the caller's Nth turn ends (VAD); the
// caller talking over a prompt is a barge-in (agent stops), and the next prompt starts with unmute.
import Foundation
import PolyAudio
import PolyCore

/// A scripted voice agent for tests: listens, answers each caller turn with the next prompt.
public final class ScriptAgent: BridgeAgent {
    /// One turn of the conversation, in seconds since the first frame.
    public struct Turn: Codable, Sendable, Equatable {
        public var speaker: String
        public var start: Double
        public var end: Double?
        /// The prompt's file name (agent turns).
        public var prompt: String?
        /// The caller cut the prompt short (agent turns).
        public var interrupted: Bool?
    }

    private struct Timeline: Codable {
        var callId: String
        var turns: [Turn]
    }

    private let prompts: [(name: String, samples: [Int16])]
    private var vad: VoiceActivityDetector
    private let callID: String
    private let timelineURL: URL?
    private let recorder: CallRecorder?

    private var origin: Instant?
    private var nextPrompt = 0
    /// The prompt being played and the position in it.
    private var playing: (index: Int, position: Int)?
    private var callerSpeaking = false
    /// The caller barged in: the client is muted until we send unmute.
    private var muted = false
    private var events: [AgentEvent] = []
    public private(set) var turns: [Turn] = []

    public init(
        prompts: [(name: String, samples: [Int16])], callID: String, timelineDirectory: URL? = nil,
        recorder: CallRecorder? = nil, vad: VoiceActivityDetector.Configuration = .init()
    ) {
        self.prompts = prompts
        self.callID = callID
        self.timelineURL = timelineDirectory?.appendingPathComponent("\(callID)-timeline.json")
        self.recorder = recorder
        self.vad = VoiceActivityDetector(configuration: vad)
        events.reserveCapacity(8)
        turns.reserveCapacity(64)
    }

    /// Whether a prompt is being played.
    public var isTalking: Bool { playing != nil }

    public func process(
        inbound: UnsafeBufferPointer<Int16>, outbound: UnsafeMutableBufferPointer<Int16>, at now: Instant
    ) {
        recorder?.append(inbound)
        let origin = self.origin ?? now
        self.origin = origin
        let time = (now - origin).inSeconds
        let speech = vad.process(inbound)
        if speech && !callerSpeaking {
            callerSpeaking = true
            if playing != nil {
                playing = nil
                muted = true
                closeTurn(at: time, interrupted: true)
                events.append(.bargeIn)
            }
            turns.append(Turn(speaker: "caller", start: time))
        } else if !speech && callerSpeaking {
            callerSpeaking = false
            closeTurn(at: time, interrupted: nil)
            startPrompt(at: time)
        }
        fill(outbound, at: time + AgentAudio.frameDuration.inSeconds)
    }

    public func pollEvent() -> AgentEvent? { events.isEmpty ? nil : events.removeFirst() }

    public func finish(at now: Instant) throws {
        let time = origin.map { (now - $0).inSeconds } ?? 0
        if turns.last?.end == nil, !turns.isEmpty { closeTurn(at: time, interrupted: playing != nil ? false : nil) }
        try recorder?.finish(sampleRate: mediaProfile.sampleRate)
        guard let timelineURL else { return }
        try FileManager.default.createDirectory(
            at: timelineURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(Timeline(callId: callID, turns: turns)).write(to: timelineURL)
    }

    private func startPrompt(at time: Double) {
        guard nextPrompt < prompts.count else { return }
        playing = (nextPrompt, 0)
        turns.append(Turn(speaker: "agent", start: time, prompt: prompts[nextPrompt].name))
        nextPrompt += 1
        if muted {
            muted = false
            events.append(.unmute)
        }
    }

    private func fill(_ outbound: UnsafeMutableBufferPointer<Int16>, at endTime: Double) {
        guard let (index, start) = playing else {
            for i in 0..<outbound.count { outbound[i] = 0 }
            return
        }
        let samples = prompts[index].samples
        var position = start
        for i in 0..<outbound.count {
            if position < samples.count {
                outbound[i] = samples[position]
                position += 1
            } else {
                outbound[i] = 0
            }
        }
        if position >= samples.count {
            playing = nil
            closeTurn(at: endTime, interrupted: false)
        } else {
            playing = (index, position)
        }
    }

    private func closeTurn(at time: Double, interrupted: Bool?) {
        guard let last = turns.indices.last, turns[last].end == nil else { return }
        turns[last].end = time
        if turns[last].speaker == "agent" { turns[last].interrupted = interrupted ?? false }
    }
}
