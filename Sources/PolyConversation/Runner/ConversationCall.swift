// The I/O shell of one scripted call: a `PolyCall` whose audio both ways is the script itself
// (`ScriptAudio`, 48 kHz frames on the call's 20 ms tick). One clock: the call reads the caller's frame and
// writes the heard frame on the same tick, the first frame read is t = 0 and heard sample p is caller time
// p. The caller runs `lead` frames ahead of what it has heard (its reaction time), and every heard frame
// makes the next frame to send.
import PolyMedia
import PolyVoice
import Synchronization

public struct ConversationCallSettings: Sendable {
    /// Frames the caller sends ahead of what it has heard (6 × 20 ms): the margin against falling behind
    /// the call's clock, and the caller's fastest reaction.
    public var leadFrames = 6
    /// A call that runs longer than this is hung up (its steps fail).
    public var maxDuration: Duration = .seconds(600)

    public init() {}
}

public enum ConversationCall {
    /// Places one call, runs the script to its end, hangs up and measures.
    public static func run(
        scenario: Scenario, steps: [PreparedStep], call index: Int, seed: UInt64, config: Configuration,
        options base: VoiceOptions, settings: ConversationCallSettings = ConversationCallSettings()
    ) async -> CallResult {
        var options = base
        options.audioProcessing = .off
        options.networkImpairment = ScenarioSupport.impairment(scenario.network, callSeed: seed, index: index)
        var result = CallResult(
            call: index, seed: seed, finalState: .idle, setupMs: nil,
            metrics: ConversationMetrics(turns: [], endSample: 0), steps: [], expectations: [], stats: MediaStats(),
            quality: CallQuality(), sent: [], heard: [], underrunMs: 0, error: nil)
        let dtmf = DTMFSender()
        let audio = ScriptAudio(
            script: ConversationScript(steps: steps, hangupAfterSilenceSeconds: scenario.hangupAfterSilenceSeconds),
            lead: settings.leadFrames, onDTMF: { dtmf.send($0) })
        options.input = .frames(audio)
        options.output = .frames(audio)
        let call: PolyCall
        do {
            call = try PolyVoice.call(config: config, options: options)
        } catch {
            result.finalState = .failed(error)
            result.error = "\(error)"
            return result
        }
        dtmf.call = call
        let watchdog = Task {
            try? await Task.sleep(for: settings.maxDuration)
            await call.end()
        }
        var started = true
        do {
            try await call.start()
        } catch {
            started = false
            result.error = "the call failed: \(error)"
        }
        // Runs until the script is done or the call ended (the call closes its audio however it ends).
        if started { await Self.waitUntilDone(call: call, audio: audio) }
        let finished = audio.scriptFinished
        let stats = await call.stats
        await call.end()
        watchdog.cancel()
        var outcome = audio.outcome()
        for (step, method, failure) in await dtmf.results() {
            outcome.script.dtmfSent(step: step, method: method, failure: failure)
        }
        result.finalState = call.state
        if case .failed(let error) = call.state { result.error = result.error ?? "the call failed: \(error)" }
        if !finished, result.error == nil { result.error = "the call ended before the script did" }
        result.setupMs = await call.setupTime.map {
            Double($0.components.seconds) * 1000 + Double($0.components.attoseconds) / 1e15
        }
        result.stats = stats
        result.quality = call.quality
        result.sent = outcome.sent
        result.heard = outcome.heard
        result.underrunMs = ConversationClock.milliseconds(outcome.underrunSamples)
        result.clockLagMs = ConversationClock.milliseconds(call.audioCounters.clockLagSamples)
        result.steps = outcome.script.outcomes
        result.metrics = ConversationMetrics(turns: outcome.script.tracker.finished(), endSample: outcome.heard.count)
        if result.error == nil {
            result.expectations = ExpectationCheck.check(scenario.expect, result.metrics)
        }
        return result
    }

    /// Returns when the script finished or the call reached a terminal state (its audio may never have
    /// been opened then).
    private static func waitUntilDone(call: PolyCall, audio: ScriptAudio) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await audio.waitUntilDone() }
            group.addTask {
                for await state in call.states where state.isTerminal { return }
            }
            await group.next()
            audio.close()
            group.cancelAll()
        }
    }
}

/// Sends DTMF steps' digits through the call without holding up the call's tick (the SDK paces the digits)
/// and keeps how each went, for the script once the call is over.
private final class DTMFSender: Sendable {
    private let state = Mutex<(call: PolyCall?, tasks: [Task<Void, Never>], results: [DTMFResult])>((nil, [], []))
    typealias DTMFResult = (step: Int, method: String?, failure: String?)

    var call: PolyCall? {
        get { state.withLock { $0.call } }
        set { state.withLock { $0.call = newValue } }
    }

    func send(_ request: DTMFRequest) {
        state.withLock { state in
            let call = state.call
            state.tasks.append(
                Task { [self] in
                    let result: DTMFResult
                    do {
                        guard let call else { throw PolyError.voice(.mediaFailed("no call")) }
                        result = (request.step, try await call.sendDTMF(request.digits).rawValue, nil)
                    } catch {
                        result = (request.step, nil, "DTMF was not sent: \(error)")
                    }
                    self.state.withLock { $0.results.append(result) }
                })
        }
    }

    /// How each DTMF step went, once every send has returned.
    func results() async -> [DTMFResult] {
        for task in state.withLock({ $0.tasks }) { await task.value }
        return state.withLock { $0.results }
    }
}
