// The I/O shell of one scripted call: a `PolyCall` with app-buffer audio at 48 kHz both ways, driven by
// `ConversationScript`. One clock: the call reads the caller's frame and writes the heard frame on the
// same 20 ms tick, and `CallAudioCounters.inputStartPlayedSamples` says which heard sample went with the
// first sent one, so heard sample p is caller time p − that. The caller runs `lead` frames ahead of
// what it has heard (its reaction time), and every heard frame makes the next frame to send.
import Foundation
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
        let (speech, mouth) = AsyncStream.makeStream(of: [Int16].self)
        let (heard, ears) = AsyncStream.makeStream(of: [Int16].self)
        var options = base
        options.input = .buffer(speech, sampleRate: ConversationClock.sampleRate)
        options.output = .buffer(ears, sampleRate: ConversationClock.sampleRate)
        options.audioProcessing = .off
        options.networkImpairment = ScenarioSupport.impairment(scenario.network, callSeed: seed, index: index)
        var result = CallResult(
            call: index, seed: seed, finalState: .idle, setupMs: nil,
            metrics: ConversationMetrics(turns: [], endSample: 0), steps: [], expectations: [], stats: MediaStats(),
            quality: CallQuality(), sent: [], heard: [], underrunMs: 0, error: nil)
        let call: PolyCall
        do {
            call = try PolyVoice.call(config: config, options: options)
        } catch {
            result.finalState = .failed(error)
            result.error = "\(error)"
            return result
        }
        let driver = ScriptDriver(
            script: ConversationScript(steps: steps, hangupAfterSilenceSeconds: scenario.hangupAfterSilenceSeconds),
            lead: settings.leadFrames, mouth: mouth)
        driver.prime()
        let listening = Task { await driver.listen(to: heard, call: call) }
        let watchdog = Task {
            try? await Task.sleep(for: settings.maxDuration)
            await call.end()
        }
        do {
            try await call.start()
        } catch {
            result.error = "the call failed: \(error)"
        }
        // Runs until the script is done or the call ended (the heard stream finishes with the call).
        let finished = await Self.waitUntilDone(call: call, driver: driver)
        let stats = await call.stats
        await call.end()
        watchdog.cancel()
        mouth.finish()
        // The call's sink finishes the heard stream when it closes; a call that failed before opening its
        // audio never made one, so finish it here too (later yields are ignored).
        ears.finish()
        let outcome = await listening.value
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

    /// Polls (50 ms) until the driver's script finished or the call reached a terminal state.
    private static func waitUntilDone(call: PolyCall, driver: ScriptDriver) async -> Bool {
        while true {
            if driver.isFinished { return true }
            if call.state.isTerminal { return false }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// What the listening task hands back when the heard stream ends.
struct DriverOutcome: Sendable {
    var script: ConversationScript
    var sent: [Int16]
    var heard: [Int16]
    var underrunSamples: Int
}

/// Owns the script; only the listening task touches it (and `prime` before that task starts).
private final class ScriptDriver: @unchecked Sendable {
    private var script: ConversationScript
    private let lead: Int
    private let mouth: AsyncStream<[Int16]>.Continuation
    private var frame = [Int16](repeating: 0, count: ConversationClock.samplesPerFrame)
    private var sent: [Int16] = []
    private var heard: [Int16] = []
    private var nextSendIndex = 0
    private let finished = Atomic<Bool>(false)
    /// How each DTMF step went: sent by tasks of their own, merged into the script when listening ends.
    private let dtmfResults = Mutex<[(step: Int, method: String?, failure: String?)]>([])

    init(script: ConversationScript, lead: Int, mouth: AsyncStream<[Int16]>.Continuation) {
        self.script = script
        self.lead = lead
        self.mouth = mouth
        sent.reserveCapacity(48_000 * 60)
        heard.reserveCapacity(48_000 * 60)
    }

    var isFinished: Bool { finished.load(ordering: .acquiring) }

    /// The first `lead` frames, queued before the call starts (the call holds them until the agent's audio
    /// is connected, then sends the first of them as t = 0).
    func prime() {
        for _ in 0..<lead { produce() }
    }

    private func produce() {
        frame.withUnsafeMutableBufferPointer { script.produce(into: $0, at: nextSendIndex) }
        nextSendIndex += frame.count
        sent += frame
        mouth.yield(frame)
    }

    /// Sends a DTMF step's digits without holding up the heard frames (the SDK paces the digits).
    private func send(_ request: DTMFRequest, through call: PolyCall) {
        Task { [self] in
            let result: (method: String?, failure: String?)
            do { result = (try await call.sendDTMF(request.digits).rawValue, nil) } catch {
                result = (nil, "DTMF was not sent: \(error)")
            }
            dtmfResults.withLock { $0.append((request.step, result.method, result.failure)) }
        }
    }

    func listen(to stream: AsyncStream<[Int16]>, call: PolyCall) async -> DriverOutcome {
        var played = 0
        var origin: Int?
        var pending: [Int16] = []
        var underrun = 0
        let size = ConversationClock.samplesPerFrame
        listening: for await chunk in stream {
            defer { played += chunk.count }
            if origin == nil {
                // Set on the tick the first caller frame went out, before that tick's heard frame was written:
                // still nil here means this chunk was heard before t = 0.
                origin = call.audioCounters.inputStartPlayedSamples
            }
            guard let origin else { continue }
            let skip = max(0, origin - played)
            guard skip < chunk.count else { continue }
            pending += chunk.dropFirst(skip)
            while pending.count >= size {
                let index = heard.count
                let block = Array(pending.prefix(size))
                pending.removeFirst(size)
                heard += block
                block.withUnsafeBufferPointer { script.heard($0, at: index) }
                // The frame heard at `index` went out with caller sample `index`: all of it should have been read.
                underrun = max(underrun, index + size - call.audioCounters.capturedSamples)
                if script.isFinished {
                    // Stop here: what follows is the hang-up, with nothing more sent.
                    finished.store(true, ordering: .releasing)
                    break listening
                }
                produce()
                while let request = script.takeDTMFRequest() { send(request, through: call) }
            }
        }
        for (step, method, failure) in dtmfResults.withLock({ $0 }) {
            script.dtmfSent(step: step, method: method, failure: failure)
        }
        return DriverOutcome(
            script: script, sent: Array(sent.prefix(heard.count)), heard: heard, underrunSamples: underrun)
    }
}
