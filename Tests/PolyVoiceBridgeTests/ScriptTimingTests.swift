// The script agent's known timing in virtual time: the exact sample a reply starts and stops at.
import Foundation
import PolyAudio
import PolyCore
import Testing

@testable import PolyVoiceBridge

@Suite struct ScriptTimingTests {
    /// A 2 s prompt of a constant level, then a 0.5 s one.
    static let prompts: [(name: String, samples: [Int16])] = [
        ("1.wav", [Int16](repeating: 1111, count: 96_000)), ("2.wav", [Int16](repeating: 2222, count: 24_000)),
    ]
    static let frame = Frames.size

    struct Run {
        /// Every output sample, in order (sample n of the agent's audio at index n).
        var samples: [Int16] = []
        var events: [(frame: Int, event: AgentEvent)] = []
    }

    /// Feeds `plan` (true = the caller talks in that frame) and collects the agent's audio and events.
    static func run(_ agent: ScriptAgent, _ segments: [(Bool, Int)], sound: (Int) -> [Int16] = { Frames.tone($0) })
        -> Run
    {
        var run = Run()
        let plan = segments.flatMap { talking, frames in [Bool](repeating: talking, count: frames) }
        for (index, talking) in plan.enumerated() {
            run.samples += agent.process(talking ? sound(index) : Frames.quiet(index), at: Frames.time(index))
            while let event = agent.pollEvent() { run.events.append((index, event)) }
        }
        return run
    }

    static func agent(_ timing: ScriptTiming) -> ScriptAgent {
        ScriptAgent(prompts: prompts, callID: "call-t", timing: timing)
    }

    @Test func replyLatencyStartsTheReplyAtTheExactSample() {
        let agent = Self.agent(ScriptTiming(replyLatency: .milliseconds(333)))
        // Caller voiced in frames 10..<35: its speech ends at sample 35·960 = 33 600 (0.7 s).
        let run = Self.run(agent, [(false, 10), (true, 25), (false, 140)])
        let start = 33_600 + 15_984  // + 333 ms at 48 kHz
        #expect(run.samples.firstIndex(of: 1111) == start)
        #expect(run.samples[..<start].allSatisfy { $0 == 0 })
        #expect(run.samples[start..<(start + 96_000)].allSatisfy { $0 == 1111 })
        #expect(run.samples[(start + 96_000)...].allSatisfy { $0 == 0 })
        #expect(agent.turns.count == 2)
        let caller = agent.turns[0]
        let reply = agent.turns[1]
        #expect(caller.end == 0.7 && caller.endOfTurn == 1.0 && caller.answered == true)
        #expect(reply.callerEnd == 0.7 && reply.start == Double(start) / 48_000)
        #expect(reply.end == Double(start + 96_000) / 48_000 && reply.stop == "finished")
        #expect(run.events.isEmpty)
    }

    @Test func withoutALatencyTheReplyStartsWhenTheVADEndsTheTurn() {
        let agent = Self.agent(.immediate)
        let run = Self.run(agent, [(false, 10), (true, 25), (false, 30)])
        // The hangover: 15 frames after the last voiced one.
        #expect(run.samples.firstIndex(of: 1111) == 50 * Self.frame)
    }

    /// The agent's first frame may already be the caller's voice (its audio starts with the first packet):
    /// that turn is heard and answered like any other.
    @Test func aCallerTalkingFromTheFirstFrameIsAnswered() {
        let agent = Self.agent(.immediate)
        let run = Self.run(agent, [(true, 25), (false, 30)])
        #expect(run.samples.firstIndex(of: 1111) == 40 * Self.frame)
        #expect(agent.turns.map(\.speaker) == ["caller", "agent"])
        #expect(agent.turns[0].start == 0 && agent.turns[0].end == 0.5)
    }

    @Test func callerResumingBeforeTheReplyPostponesIt() {
        let agent = Self.agent(ScriptTiming(replyLatency: .seconds(1)))
        // Speech ends at 0.7 s; the caller talks again at frame 60 (1.2 s), before the reply is due at 1.7 s.
        let run = Self.run(agent, [(false, 10), (true, 25), (false, 25), (true, 10), (false, 100)])
        // The second turn ends at sample 70·960 = 67 200 (1.4 s): the reply comes 1 s later.
        #expect(run.samples.firstIndex(of: 1111) == 67_200 + 48_000)
        #expect(agent.turns.map(\.speaker) == ["caller", "caller", "agent"])
        #expect(agent.turns[0].answered == false && agent.turns[1].answered == true)
    }

    @Test func yieldStopsAtTheExactSampleWhileTheCallerTalksOn() {
        let agent = Self.agent(ScriptTiming(yield: .after(.milliseconds(250))))
        // The prompt starts at frame 50; the caller talks over it from frame 60 (sample 57 600) for 0.8 s.
        let run = Self.run(agent, [(false, 10), (true, 25), (false, 25), (true, 40), (false, 40)])
        let stop = 57_600 + 12_000
        #expect(run.samples[(50 * Self.frame)..<stop].allSatisfy { $0 == 1111 })
        #expect(run.samples[stop..<(stop + 1000)].allSatisfy { $0 == 0 })
        // Barge-in goes out with the frame the agent stopped in (frame 72: samples 69 120..<70 080).
        #expect(run.events.first.map { $0.frame } == 72 && run.events.first?.event == .bargeIn)
        let reply = agent.turns[1]
        #expect(reply.stop == "yielded" && reply.interrupted == true)
        #expect(reply.talkedOverAt == 1.2 && reply.end == Double(stop) / 48_000)
        // The interrupting turn is answered with prompt 2, after unmute.
        #expect(agent.turns.map(\.speaker) == ["caller", "agent", "caller", "agent"])
        #expect(agent.turns[2].overAgent == true && agent.turns[2].answered == true)
        #expect(run.events.last?.event == .unmute && run.samples.contains(2222))
    }

    @Test func aBackchannelShorterThanTheYieldTimeIsTalkedThrough() {
        let agent = Self.agent(ScriptTiming(yield: .after(.milliseconds(800))))
        // "mm-hmm": 100 ms at frame 60; the VAD ends it at frame 80, before the yield would be due (frame 100).
        let run = Self.run(agent, [(false, 10), (true, 25), (false, 25), (true, 5), (false, 140)])
        #expect(run.samples.filter { $0 == 1111 }.count == 96_000)
        #expect(run.events.isEmpty)
        #expect(agent.turns[1].stop == "finished" && agent.turns[1].interrupted == false)
        #expect(agent.turns[2].overAgent == true && agent.turns[2].answered == false)
        #expect(!run.samples.contains(2222))
    }

    @Test func aBackchannelThatEndsBeforeTheYieldIsTalkedThroughThoughTheVADStillHoldsTheTurn() {
        let agent = Self.agent(ScriptTiming(yield: .after(.milliseconds(300))))
        // 160 ms of sound at frame 60: the VAD's 300 ms hangover holds the turn open past the yield time
        // (frame 75), but the caller had been silent 140 ms by then (≥ 100 ms): a backchannel, talked through.
        let run = Self.run(agent, [(false, 10), (true, 25), (false, 25), (true, 8), (false, 140)])
        #expect(run.samples.filter { $0 == 1111 }.count == 96_000)
        #expect(run.events.isEmpty)
        #expect(agent.turns[1].stop == "finished" && agent.turns[1].interrupted == false)
        // The same sound 60 ms longer leaves only 80 ms of silence at the yield time: the agent stops there.
        let longer = Self.agent(ScriptTiming(yield: .after(.milliseconds(300))))
        let stopped = Self.run(longer, [(false, 10), (true, 25), (false, 25), (true, 11), (false, 140)])
        #expect(longer.turns[1].stop == "yielded" && longer.turns[1].end == Double(57_600 + 14_400) / 48_000)
        #expect(stopped.events.first?.event == .bargeIn)
    }

    @Test func neverYieldingTalksThroughALongInterruption() {
        let agent = Self.agent(ScriptTiming(yield: .never))
        let run = Self.run(agent, [(false, 10), (true, 25), (false, 25), (true, 60), (false, 120)])
        #expect(run.samples.filter { $0 == 1111 }.count == 96_000)
        #expect(run.events.isEmpty)
        #expect(agent.turns[1].stop == "finished")
    }

    @Test func aFalseYieldingAgentStopsOnASoundTheOthersTalkThrough() {
        // One quiet click (-40 dBFS) in frame 60, over the prompt.
        let click = { (index: Int) in Frames.tone(index, amplitude: 300) }
        let plan: [(Bool, Int)] = [(false, 10), (true, 25), (false, 25), (true, 1), (false, 140)]
        let patient = Self.agent(ScriptTiming(yield: .after(.milliseconds(500))))
        let patientRun = Self.run(patient, plan, sound: { $0 == 60 ? click($0) : Frames.tone($0) })
        #expect(patientRun.samples.filter { $0 == 1111 }.count == 96_000)
        let falseYielding = Self.agent(ScriptTiming(falseYield: true))
        let run = Self.run(falseYielding, plan, sound: { $0 == 60 ? click($0) : Frames.tone($0) })
        #expect(run.samples.lastIndex(of: 1111) == 60 * Self.frame - 1)
        #expect(run.events.first.map { $0.frame } == 60 && run.events.first?.event == .bargeIn)
        #expect(falseYielding.turns[1].stop == "yielded" && falseYielding.turns[1].talkedOverAt == 1.2)
    }

    @Test func timelineRecordsTheTimingAndEveryEdge() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("script-timing-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let agent = ScriptAgent(
            prompts: Self.prompts, callID: "call-j", timing: ScriptTiming(replyLatency: .milliseconds(500)),
            timelineDirectory: directory)
        _ = Self.run(agent, [(false, 10), (true, 25), (false, 60)])
        try agent.finish(at: Frames.time(95))
        let data = try Data(contentsOf: directory.appendingPathComponent("call-j-timeline.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let timing = try #require(json["timing"] as? [String: Any])
        #expect(timing["replyLatencyMs"] as? Int == 500 && timing["yieldMs"] as? Int == 0)
        #expect(json["sampleRate"] as? Int == 48_000)
        let turns = try #require(json["turns"] as? [[String: Any]])
        #expect(turns[1]["callerEnd"] as? Double == 0.7 && turns[1]["start"] as? Double == 1.2)
        // The call ended mid-prompt (1.9 s).
        #expect(turns[1]["stop"] as? String == "hangup" && turns[1]["end"] as? Double == 1.9)
    }
}

@Suite struct ScriptTimingValidationTests {
    @Test func parsesTheCommandLineForms() throws {
        #expect(
            try ScriptTiming(replyLatency: "450", yield: "800", falseYield: false)
                == ScriptTiming(replyLatency: .milliseconds(450), yield: .after(.milliseconds(800))))
        #expect(try ScriptTiming(replyLatency: nil, yield: "never", falseYield: false).yield == .never)
        #expect(try ScriptTiming(replyLatency: nil, yield: nil, falseYield: true).falseYield)
    }

    @Test func rejectsWhatTheAgentCannotDo() {
        let cases: [(String?, String?, Bool, String)] = [
            ("200", nil, false, "reply latency must be 300-60000 ms"),
            ("fast", nil, false, "--reply-latency must be a whole number"),
            (nil, "-5", false, "yield must be 0-60000 ms or never"),
            (nil, "soon", false, "--yield-ms must be a whole number of milliseconds or never"),
            (nil, "100", true, "a false-yielding agent stops at once"),
        ]
        for (latency, yield, falseYield, message) in cases {
            let error = #expect(throws: AgentError.self) {
                try ScriptTiming(replyLatency: latency, yield: yield, falseYield: falseYield)
            }
            #expect(error?.description.hasPrefix(message) == true, "\(error.map(\.description) ?? "no error")")
        }
    }

    @Test func theBridgeRefusesAnInvalidTimingAtStart() throws {
        let timing = ScriptTiming(replyLatency: .milliseconds(100))
        #expect(throws: AgentError.self) { try AgentTemplate(.script(directory: "/nonexistent", timing: timing)) }
        let bridge = Bridge(
            configuration: BridgeConfiguration(
                allowAnyToken: true, agent: .script(directory: "/nonexistent", timing: timing)))
        let error = #expect(throws: BridgeError.self) { try bridge.start() }
        guard case .agent(let agentError) = error else {
            Issue.record("expected an agent error, got \(String(describing: error))")
            return
        }
        #expect(agentError.description.contains("reply latency"))
    }
}
