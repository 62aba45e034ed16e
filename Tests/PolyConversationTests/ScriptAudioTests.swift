// `ScriptAudio` driven as the call's 20 ms tick drives it (read the caller's frame, then write the heard
// frame), against the simulated agent: the first read is t = 0, what is heard before it is dropped, the
// caller runs `lead` frames ahead, the measurements match the agent's known timing to the sample, and the
// waiter wakes when the script ends or the call closes the audio.
import Synchronization
import Testing

@testable import PolyConversation

@Suite struct ScriptAudioTests {
    let frame = ConversationClock.samplesPerFrame

    func steps() -> [PreparedStep] {
        [
            PreparedStep(step: Step(.say("one"), path: "steps[0]"), audio: buzz(30_000)),
            PreparedStep(step: Step(.waitForAgent(timeoutSeconds: 8, settleSeconds: 1), path: "steps[1]")),
            PreparedStep(step: Step(.dtmf("1"), path: "steps[2]")),
        ]
    }

    /// Ticks until the script is done: `preroll` ticks of the agent's audio before t = 0 (written before any
    /// read, as while the call holds its input), then read/write pairs.
    func tick(
        _ audio: ScriptAudio, agent: inout SimulatedAgent, preroll: Int, maxTicks: Int = 3_000
    ) -> (sent: [Int16], ticks: Int) {
        var buffer = [Int16](repeating: 0, count: frame)
        let noise = [Int16](repeating: 9_000, count: frame)
        for _ in 0..<preroll { noise.withUnsafeBufferPointer { audio.write($0) } }
        var sent: [Int16] = []
        var ticks = 0
        while !audio.isDone, ticks < maxTicks {
            let got = buffer.withUnsafeMutableBufferPointer { audio.read(into: $0) }
            if got > 0 { sent += buffer }
            agent.sent = sent
            let start = ticks * frame
            agent.run(until: start + frame + agent.pathDelay)
            let heard = (0..<frame).map { start + $0 >= agent.pathDelay ? agent.out[start + $0 - agent.pathDelay] : 0 }
            heard.withUnsafeBufferPointer { audio.write($0) }
            ticks += 1
        }
        return (sent, ticks)
    }

    @Test func theCallsTickDrivesTheScriptOnOneClock() async throws {
        let pathDelay = 1_000
        let replyDelay = 24_000
        var agent = SimulatedAgent(pathDelay: pathDelay, replyDelay: replyDelay, promptLength: 48_000, yieldDelay: nil)
        let requests = RequestLog()
        let audio = ScriptAudio(
            script: ConversationScript(steps: steps()), lead: 6, reserveSeconds: 1, onDTMF: { requests.append($0) })
        let (sent, ticks) = tick(audio, agent: &agent, preroll: 3)
        #expect(audio.isDone && audio.scriptFinished && audio.endOfStream)
        await audio.waitUntilDone()  // returns at once once done
        let outcome = audio.outcome()
        #expect(outcome.underrunSamples == 0)
        #expect(outcome.heard.count == outcome.sent.count)
        #expect(outcome.heard.count == ticks * frame)
        // What the call read is what the script made, in order; the noise written before t = 0 is not heard.
        #expect(Array(sent.prefix(outcome.sent.count)) == outcome.sent)
        #expect(outcome.heard.prefix(pathDelay).allSatisfy { $0 == 0 })
        #expect(requests.all == [DTMFRequest(step: 2, digits: "1")])
        let metrics = ConversationMetrics(turns: outcome.script.tracker.finished(), endSample: outcome.heard.count)
        let reply = try #require(metrics.turns.first { $0.speaker == .agent })
        #expect(reply.responseLatencyMs == ConversationClock.milliseconds(replyDelay + 2 * pathDelay))
        // Once done, further ticks change nothing.
        var buffer = [Int16](repeating: 7, count: frame)
        #expect(buffer.withUnsafeMutableBufferPointer { audio.read(into: $0) } == 0)
        #expect(buffer.allSatisfy { $0 == 0 })
        buffer.withUnsafeBufferPointer { audio.write($0) }
        #expect(audio.outcome().heard.count == outcome.heard.count)
    }

    @Test func aCallThatEndsFirstWakesTheWaiterAndStopsTheTicks() async {
        let audio = ScriptAudio(
            script: ConversationScript(steps: steps()), lead: 2, reserveSeconds: 1, onDTMF: { _ in })
        let waiting = Task { await audio.waitUntilDone() }
        var buffer = [Int16](repeating: 0, count: frame)
        for _ in 0..<10 {
            _ = buffer.withUnsafeMutableBufferPointer { audio.read(into: $0) }
            buffer.withUnsafeBufferPointer { audio.write($0) }
        }
        #expect(!audio.isDone)
        audio.close()
        await waiting.value
        #expect(audio.isDone && !audio.scriptFinished)
        #expect(buffer.withUnsafeMutableBufferPointer { audio.read(into: $0) } == 0)
        #expect(audio.outcome().heard.count == 10 * frame)
    }

    @Test func aTickThatFindsNoCallerAudioCountsTheUnderrunAndKeepsTheClock() {
        // No lead: each read finds nothing made yet and sends silence; what the script makes after a heard
        // frame goes out on the next read, and sent and heard stay the same length.
        let audio = ScriptAudio(
            script: ConversationScript(steps: steps()), lead: 0, reserveSeconds: 1, onDTMF: { _ in })
        var buffer = [Int16](repeating: 0, count: frame)
        for _ in 0..<3 {
            _ = buffer.withUnsafeMutableBufferPointer { audio.read(into: $0) }
            buffer.withUnsafeBufferPointer { audio.write($0) }
        }
        let outcome = audio.outcome()
        #expect(outcome.underrunSamples == frame)
        #expect(outcome.sent.count == 3 * frame && outcome.heard.count == 3 * frame)
        // The first read was silence; the second carried the buzz the script made after the first heard frame.
        #expect(outcome.sent.prefix(frame).allSatisfy { $0 == 0 })
        #expect(outcome.sent[frame..<2 * frame].contains { $0 != 0 })
    }
}

/// DTMF requests as the loop thread hands them over.
private final class RequestLog: Sendable {
    private let requests = Mutex<[DTMFRequest]>([])
    func append(_ request: DTMFRequest) { requests.withLock { $0.append(request) } }
    var all: [DTMFRequest] { requests.withLock { $0 } }
}
