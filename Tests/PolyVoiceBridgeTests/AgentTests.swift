import Foundation
import PolyAudio
import PolyCore
import Testing

@testable import PolyVoiceBridge

/// Synthetic 20 ms frames in virtual time.
enum Frames {
    static let size = AgentAudio.frameSamples

    static func tone(_ index: Int, amplitude: Double = 8000) -> [Int16] {
        (0..<size).map { n in
            Int16(amplitude * sin(2 * Double.pi * 440 * Double(index * size + n) / 48000))
        }
    }

    static func silence() -> [Int16] { [Int16](repeating: 0, count: size) }

    /// Low noise so the VAD's floor is realistic (about -70 dBFS).
    static func quiet(_ index: Int) -> [Int16] {
        (0..<size).map { n in Int16(((index * size + n) * 7919) % 21) - 10 }
    }

    static func time(_ index: Int) -> Instant { .milliseconds(Int64(index) * 20) }
}

@Suite struct EchoAgentTests {
    @Test func zeroDelayReturnsTheFrame() {
        let agent = EchoAgent()
        let input = Frames.tone(0)
        #expect(agent.process(input, at: Frames.time(0)) == input)
    }

    @Test func delayShiftsTheAudioByWholeSamples() {
        let agent = EchoAgent(delayMilliseconds: 30)
        let delay = 30 * agent.mediaProfile.sampleRate / 1000  // 480 samples at the server profile's 16 kHz
        var inbound: [Int16] = []
        var outbound: [Int16] = []
        for index in 0..<10 {
            let frame = Frames.tone(index)
            inbound += frame
            outbound += agent.process(frame, at: Frames.time(index))
        }
        #expect(delay == 480)
        #expect(outbound.prefix(delay).allSatisfy { $0 == 0 })
        #expect(Array(outbound.dropFirst(delay)) == Array(inbound.prefix(inbound.count - delay)))
    }

    @Test func recordsTheCallerToAWAV() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bridge-rec-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let agent = EchoAgent(recorder: CallRecorder(directory: directory, callID: "call-x"))
        for index in 0..<5 { _ = agent.process(Frames.tone(index), at: Frames.time(index)) }
        try agent.finish(at: Frames.time(5))
        let wav = try WAVFile.read(from: directory.appendingPathComponent("call-x.wav"))
        #expect(wav.sampleRate == 16000 && wav.samplesPerChannel == 5 * Frames.size)
        #expect(wav.int16Frame.samples == (0..<5).flatMap { Frames.tone($0) })
    }
}

@Suite struct PlayAgentTests {
    @Test func playsOnceThenSilence() {
        let samples = (0..<1500).map { Int16($0 % 100 + 1) }
        let agent = PlayAgent(samples: samples, loop: false)
        let first = agent.process(Frames.silence(), at: Frames.time(0))
        let second = agent.process(Frames.silence(), at: Frames.time(1))
        let third = agent.process(Frames.silence(), at: Frames.time(2))
        #expect(first + second.prefix(540) == samples)
        #expect(second.dropFirst(540).allSatisfy { $0 == 0 })
        #expect(third.allSatisfy { $0 == 0 })
        #expect(agent.finishedPlaying)
    }

    @Test func loopsFromTheStart() {
        let samples = (0..<1000).map { Int16($0 + 1) }
        let agent = PlayAgent(samples: samples, loop: true)
        let output = (0..<3).flatMap { agent.process(Frames.silence(), at: Frames.time($0)) }
        #expect(Array(output.prefix(1000)) == samples)
        #expect(Array(output[1000..<2000]) == samples)
        #expect(Array(output[2000..<2880]) == Array(samples.prefix(880)))
        #expect(!agent.finishedPlaying)
    }
}

@Suite struct ScriptAgentTests {
    /// Two prompts of 0.5 s (a constant non-zero level, easy to recognise).
    static let prompts: [(name: String, samples: [Int16])] = [
        ("1.wav", [Int16](repeating: 1111, count: 24000)), ("2.wav", [Int16](repeating: 2222, count: 24000)),
    ]

    struct Run {
        var outputs: [[Int16]] = []
        var events: [(Int, AgentEvent)] = []
    }

    /// Feeds `plan` (true = caller talks in that frame) and collects outputs and events by frame.
    static func run(_ agent: ScriptAgent, _ plan: [Bool]) -> Run {
        var run = Run()
        for (index, talking) in plan.enumerated() {
            run.outputs.append(
                agent.process(talking ? Frames.tone(index) : Frames.quiet(index), at: Frames.time(index)))
            while let event = agent.pollEvent() { run.events.append((index, event)) }
        }
        return run
    }

    static func plan(_ segments: [(Bool, Int)]) -> [Bool] {
        segments.flatMap { talking, frames in [Bool](repeating: talking, count: frames) }
    }

    @Test func answersEachTurnAfterTheCallerStops() {
        let agent = ScriptAgent(prompts: Self.prompts, callID: "call-s")
        // 10 quiet, 25 talking (0.5 s), then quiet: the VAD hangover is 15 frames.
        let run = Self.run(agent, Self.plan([(false, 10), (true, 25), (false, 60)]))
        let firstAgentFrame = run.outputs.firstIndex { $0.contains(1111) }
        // Speech ends at frame 35; the hangover keeps it active through frame 49; frame 50 is end of turn.
        #expect(firstAgentFrame == 50)
        #expect(run.outputs[0..<50].allSatisfy { $0.allSatisfy { $0 == 0 } })
        // 24000 samples = 25 frames of prompt, then silence.
        #expect(run.outputs[50..<75].allSatisfy { $0.allSatisfy { $0 == 1111 } })
        #expect(run.outputs[75...].allSatisfy { $0.allSatisfy { $0 == 0 } })
        #expect(run.events.isEmpty)
        #expect(agent.turns.map(\.speaker) == ["caller", "agent"])
        #expect(agent.turns[1].interrupted == false && agent.turns[1].prompt == "1.wav")
        #expect(abs((agent.turns[1].end ?? 0) - 1.5) < 1e-9)
    }

    @Test func bargeInStopsTheAgentAndTheNextPromptUnmutes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bridge-script-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let agent = ScriptAgent(prompts: Self.prompts, callID: "call-b", timelineDirectory: directory)
        // Turn 1 ends at frame 50 (prompt 1 starts), caller barges in at frame 60, talks 10 frames.
        let run = Self.run(agent, Self.plan([(false, 10), (true, 25), (false, 25), (true, 10), (false, 40)]))
        #expect(run.events.count == 2)
        #expect(run.events.first?.0 == 60 && run.events.first?.1 == .bargeIn)
        // The barge-in turn ends at 70 + 15 hangover = frame 85: unmute, then prompt 2.
        #expect(run.events.last?.0 == 85 && run.events.last?.1 == .unmute)
        #expect(run.outputs[50..<60].allSatisfy { $0.allSatisfy { $0 == 1111 } })
        #expect(run.outputs[60..<85].allSatisfy { $0.allSatisfy { $0 == 0 } })
        #expect(run.outputs[85].allSatisfy { $0 == 2222 })
        try agent.finish(at: Frames.time(100))
        let data = try Data(contentsOf: directory.appendingPathComponent("call-b-timeline.json"))
        let timeline = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let turns = try #require(timeline["turns"] as? [[String: Any]])
        #expect(timeline["callId"] as? String == "call-b")
        #expect(turns.map { $0["speaker"] as? String } == ["caller", "agent", "caller", "agent"])
        #expect(turns[1]["interrupted"] as? Bool == true)
        #expect(turns[3]["prompt"] as? String == "2.wav")
    }

    @Test func runsOutOfPromptsQuietly() {
        let agent = ScriptAgent(prompts: [Self.prompts[0]], callID: "call-q")
        let run = Self.run(agent, Self.plan([(false, 5), (true, 10), (false, 45), (true, 10), (false, 40)]))
        #expect(run.outputs.filter { $0.contains(1111) }.count == 25)
        #expect(!run.outputs.contains { $0.contains(2222) })
        #expect(agent.turns.map(\.speaker) == ["caller", "agent", "caller"])
    }
}

@Suite struct AgentSpecTests {
    @Test func parsesEveryForm() throws {
        #expect(try AgentSpec(parsing: "echo") == .echo(delayMilliseconds: 0))
        #expect(try AgentSpec(parsing: "echo:250") == .echo(delayMilliseconds: 250))
        #expect(try AgentSpec(parsing: "play:/a:b.wav") == .play(file: "/a:b.wav", loop: false))
        #expect(try AgentSpec(parsing: "loop:x.wav") == .play(file: "x.wav", loop: true))
        #expect(try AgentSpec(parsing: "script:dir") == .script(directory: "dir"))
        #expect(throws: AgentError.self) { try AgentSpec(parsing: "echo:-1") }
        #expect(throws: AgentError.self) { try AgentSpec(parsing: "play:") }
        #expect(throws: AgentError.self) { try AgentSpec(parsing: "karaoke") }
    }

    @Test func scriptTemplateLoadsNumberedPrompts() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bridge-prompts-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: AgentError.self) { try AgentTemplate(.script(directory: directory.path)) }
        for n in 1...2 {
            try WAVFile(sampleRate: 16000, layout: .mono, samples: .int16([Int16](repeating: 100, count: 1600)))
                .write(to: directory.appendingPathComponent("\(n).wav"))
        }
        let template = try AgentTemplate(.script(directory: directory.path))
        let agent = try #require(template.makeAgent(callID: "c", recordDirectory: nil) as? ScriptAgent)
        #expect(!agent.isTalking)
    }
}
