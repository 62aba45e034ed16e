// The measurement core against ground truth the test controls to the sample: synthetic audio fed to the
// tracker, and whole scripted conversations with an agent of known timing.
import Foundation
import Testing

@testable import PolyConversation

@Suite struct MeasurementTests {
    let frame = ConversationClock.samplesPerFrame

    @Test func trackerFindsSampleExactEdgesOfBothSpeakers() {
        var tracker = TurnTracker()
        // Caller: voice at samples 1_000..<20_000 (step 0); agent heard at 30_017..<70_001 and 100_500..<110_000.
        let total = 150 * frame
        var sent = [Int16](repeating: 0, count: total)
        var heard = [Int16](repeating: 0, count: total)
        sent.replaceSubrange(1_000..<20_000, with: buzz(19_000))
        heard.replaceSubrange(30_017..<70_001, with: buzz(39_984))
        heard.replaceSubrange(100_500..<110_000, with: buzz(9_500))
        for k in 0..<150 {
            let range = k * frame..<(k + 1) * frame
            Array(sent[range]).withUnsafeBufferPointer { tracker.sent($0, at: range.lowerBound, step: 0, kind: "say") }
            Array(heard[range]).withUnsafeBufferPointer { tracker.heard($0, at: range.lowerBound) }
        }
        let turns = tracker.finished()
        #expect(turns.map(\.speaker) == [.caller, .agent, .agent])
        #expect(turns.map(\.startSample) == [1_000, 30_017, 100_500])
        #expect(turns.map(\.endSample) == [20_000, 70_001, 110_000])
        let metrics = ConversationMetrics(turns: turns, endSample: total)
        #expect(metrics.turns[1].responseLatencyMs == ConversationClock.milliseconds(30_017 - 20_000))
        #expect(metrics.turns[2].responseLatencyMs == nil)  // a second agent turn answers nothing
        // An agent turn that starts while the caller talks (an echo) answers nothing either.
        let echo = ConversationMetrics(
            turns: [
                MeasuredTurn(speaker: .caller, startSample: 0, endSample: 1000, kind: "say"),
                MeasuredTurn(speaker: .caller, startSample: 50_000, endSample: 90_000, kind: "say"),
                MeasuredTurn(speaker: .agent, startSample: 53_000, endSample: 93_000),
            ], endSample: 100_000)
        #expect(echo.turns[2].responseLatencyMs == nil)
        #expect(abs(metrics.agentTalkMs - ConversationClock.milliseconds(39_984 + 9_500)) < 1e-9)
    }

    @Test func quietOnsetInTheFrameBeforeIsStillTheEdge() {
        var tracker = TurnTracker()
        var heard = [Int16](repeating: 0, count: 40 * frame)
        // 10 voiced samples at the end of frame 9 (too quiet a frame for the VAD), then loud from frame 10 on.
        heard.replaceSubrange(10 * frame - 10..<30 * frame + 5, with: buzz(20 * frame + 15))
        for k in 0..<40 {
            Array(heard[k * frame..<(k + 1) * frame]).withUnsafeBufferPointer { tracker.heard($0, at: k * frame) }
        }
        let agent = tracker.finished()
        #expect(agent.count == 1)
        #expect(agent.first?.startSample == 10 * frame - 10)
        #expect(agent.first?.endSample == 30 * frame + 5)
    }

    /// Pictures of odd calls (no audio, turns past the audio's end, a huge latency) draw without trapping.
    @Test func plotsOfOddCallsDoNotTrap() {
        var turn = MeasuredTurn(speaker: .agent, startSample: 10_000_000, endSample: 9_000_000)
        turn.responseLatencyMs = 1e9
        let result = CallResult(
            call: 0, seed: 1, finalState: .idle, setupMs: nil,
            metrics: ConversationMetrics(turns: [turn], endSample: 0), steps: [], expectations: [],
            stats: .init(), quality: .init(), sent: [], heard: [1, 2, 3], underrunMs: 0, error: "x")
        let png = TimelinePlot.timeline(result).encoded()
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(TimelinePlot.summary([result, result]).encoded().count > 100)
        var image = PNGImage(width: 4, height: 4)
        image.fill(x: 10, y: 10, width: -5, height: 3, RGB(0, 0, 0))
        image.fill(x: -3, y: 1, width: 4, height: 1, RGB(1, 2, 3))
        #expect(image.pixel(x: 0, y: 1) == RGB(1, 2, 3))
        #expect(image.pixel(x: 1, y: 1) == RGB(255, 255, 255))
    }

    @Test func reportNumbersAreAlwaysValidJSON() throws {
        let values: [Double] = [12.00001, -0.00001, 1.5, 3, 1e20, 0.12345, .nan, .infinity]
        let text = JSONValue.array(values.map { .number($0) }).text()
        #expect(text == "[12,0,1.5,3,100000000000000000000,0.1235,null,null]")
        let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any]
        #expect(parsed?.count == values.count)
    }

    @Test func metricsFromWrittenTurns() {
        func turn(_ speaker: MeasuredTurn.Speaker, _ start: Double, _ end: Double, _ kind: String? = nil)
            -> MeasuredTurn
        {
            MeasuredTurn(
                speaker: speaker, startSample: ConversationClock.samples(milliseconds: start),
                endSample: ConversationClock.samples(milliseconds: end), kind: kind)
        }
        let turns = [
            turn(.caller, 0, 1000, "say"),
            turn(.agent, 1400, 5000),  // latency 400; barged at 2000, ends 5000: yield 3000
            turn(.caller, 2000, 2600, "say"),
            turn(.agent, 3000, 3100),  // answers the barge-in: latency 400
            turn(.agent, 6000, 9000),
            turn(.caller, 6500, 6800, "backchannel"),  // agent ends 9000: 2500 ms later, no false yield
            turn(.agent, 10_000, 11_000),
            turn(.caller, 10_200, 10_400, "backchannel"),  // agent ends 800 ms later: false yield
            turn(.caller, 12_000, 13_000, "say"),  // no reply until the end at 16_000: dead air
        ]
        let metrics = ConversationMetrics(turns: turns, endSample: ConversationClock.samples(milliseconds: 16_000))
        let byStart = Dictionary(uniqueKeysWithValues: metrics.turns.map { ($0.startMs, $0) })
        #expect(byStart[1400]?.responseLatencyMs == 400)
        #expect(byStart[1400]?.interrupted == true)
        #expect(byStart[2000]?.interrupted == true)
        #expect(byStart[2000]?.yieldMs == 3000)
        #expect(byStart[3000]?.responseLatencyMs == 400)  // the reply to the barge-in
        #expect(byStart[6500]?.falseYield == false)
        #expect(byStart[10_200]?.falseYield == true)
        #expect(byStart[10_000]?.interrupted == false)  // a backchannel is not an interruption of the agent
        #expect(metrics.deadAir.map(\.durationMs) == [3000])
        #expect(metrics.overlapCount == 3)
        #expect(Percentile.of([1, 2, 3, 4, 100], 95) == 100)
        #expect(Percentile.of([5, 1, 3], 50) == 3)
    }

    @Test func scriptedConversationMeasuresTheAgentsTimingExactly() throws {
        let pathDelay = 1_234  // one way, samples
        let replyDelay = 24_000  // 500 ms
        var agent = SimulatedAgent(
            pathDelay: pathDelay, replyDelay: replyDelay, promptLength: 96_000, yieldDelay: 9_600)
        let steps = [
            PreparedStep(
                step: Step(.say("one"), path: "steps[0]"), audio: [Int16](repeating: 0, count: 500) + buzz(30_000)),
            PreparedStep(step: Step(.waitForAgent(timeoutSeconds: 8, settleSeconds: 1), path: "steps[1]")),
            PreparedStep(step: Step(.say("two"), path: "steps[2]"), audio: buzz(40_000)),
            PreparedStep(
                step: Step(.say("three"), bargeInAfterMs: 1000, path: "steps[3]"), audio: buzz(48_000)),
            PreparedStep(step: Step(.waitForAgent(timeoutSeconds: 8, settleSeconds: 1), path: "steps[4]")),
        ]
        var script = ConversationScript(steps: steps)
        let end = converse(&script, with: &agent)
        #expect(script.isFinished)
        #expect(script.outcomes.allSatisfy { $0.failure == nil }, "\(script.outcomes)")
        let metrics = ConversationMetrics(turns: script.tracker.finished(), endSample: end)
        let agentTurns = metrics.turns.filter { $0.speaker == .agent }
        let callerTurns = metrics.turns.filter { $0.speaker == .caller }
        #expect(callerTurns.count == 3)
        #expect(callerTurns.first?.startSample == 500)  // after the step's leading silence
        // Ground truth: latency = reply delay + the path both ways, to the sample.
        let expected = ConversationClock.milliseconds(replyDelay + 2 * pathDelay)
        #expect(agentTurns.count == 3)
        #expect(agentTurns[0].responseLatencyMs == expected)
        #expect(agentTurns[1].responseLatencyMs == expected)
        #expect(agentTurns[2].responseLatencyMs == expected)
        // The barge-in started 1000 ms after the reply was heard (to the next frame), and the agent yielded
        // 9_600 samples after it heard it: 200 ms + both paths.
        let barge = try #require(callerTurns.last)
        #expect(barge.interrupted == true)
        #expect(barge.startSample - agentTurns[1].startSample >= 48_000)
        #expect(barge.startSample - agentTurns[1].startSample < 48_000 + frame)
        #expect(barge.yieldMs == ConversationClock.milliseconds(9_600 + 2 * pathDelay))
        #expect(agentTurns[1].interrupted == true)
        #expect(agent.truth.count == 3)
        #expect(agent.truth[1].end - agent.truth[1].start < 96_000)
    }

    @Test func waitForAgentFailsAtItsTimeoutWhenTheAgentIsMute() {
        var agent = SimulatedAgent(pathDelay: 500, replyDelay: 10_000_000, promptLength: 1, yieldDelay: nil)
        let steps = [
            PreparedStep(step: Step(.say("x"), path: "steps[0]"), audio: buzz(9_600)),
            PreparedStep(step: Step(.waitForAgent(timeoutSeconds: 2, settleSeconds: 1), path: "steps[1]")),
        ]
        var script = ConversationScript(steps: steps)
        _ = converse(&script, with: &agent)
        #expect(script.isFinished)
        #expect(script.outcomes[1].failure?.contains("did not speak") == true)
        let waited = (script.outcomes[1].endMs ?? 0) - (script.outcomes[1].startMs ?? 0)
        #expect(waited >= 2000 && waited < 2040)
    }

    /// A turn, an "mm-hmm" 800 ms into the reply, then a wait for the agent.
    private let sayBackchannelWait = [
        PreparedStep(step: Step(.say("x"), path: "steps[0]"), audio: buzz(19_200)),
        PreparedStep(step: Step(.backchannel("mm-hmm"), afterMs: 800, path: "steps[1]"), audio: buzz(9_600)),
        PreparedStep(step: Step(.waitForAgent(timeoutSeconds: 10, settleSeconds: 1), path: "steps[2]")),
    ]

    @Test func waitForAgentAfterABackchannelWaitsForTheReplyItWasSaidIn() {
        // One prompt, and the agent talks through the backchannel: the reply in progress is what the wait
        // waits for (a backchannel expects no reply of its own).
        var agent = SimulatedAgent(pathDelay: 960, replyDelay: 24_000, promptLength: 240_000, yieldDelay: nil)
        agent.prompts = 1
        var script = ConversationScript(steps: sayBackchannelWait)
        let end = converse(&script, with: &agent)
        #expect(script.outcomes.allSatisfy { $0.failure == nil }, "\(script.outcomes)")
        let metrics = ConversationMetrics(turns: script.tracker.finished(), endSample: end)
        let replies = metrics.turns.filter { $0.speaker == .agent }
        #expect(replies.count == 1)
        // The wait ends one settle time after the reply ends as heard, on the caller's sending clock, which runs
        // the 5-frame lead (100 ms) ahead of what it has heard (to the frame).
        let replyEndMs = ConversationClock.milliseconds(replies.first?.endSample ?? 0)
        let waitEndMs = script.outcomes[2].endMs ?? 0
        #expect(waitEndMs >= replyEndMs + 1000 && waitEndMs <= replyEndMs + 1120, "\(replyEndMs) \(waitEndMs)")
        #expect(metrics.turns.first { $0.kind == "backchannel" }?.falseYield == false)
    }

    @Test func backchannelAgainstAFalseYieldingAgent() {
        // The agent answers the backchannel too, 700 ms after it: a gap the tracker does not merge.
        var agent = SimulatedAgent(pathDelay: 960, replyDelay: 33_600, promptLength: 240_000, yieldDelay: 0)
        var script = ConversationScript(steps: sayBackchannelWait)
        let end = converse(&script, with: &agent)
        let metrics = ConversationMetrics(turns: script.tracker.finished(), endSample: end)
        let backchannel = metrics.turns.first { $0.kind == "backchannel" }
        #expect(backchannel?.falseYield == true)
    }
}
