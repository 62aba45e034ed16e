// Runs one call for the CLI: start, a tick each second, hang up after a duration or on Ctrl-C, outcome.
import Dispatch
import Glibc
import PolyMedia
import PolyVoice

/// What the CLI shows of a running call once a second.
struct CallSnapshot: Sendable {
    var state: CallState
    var elapsed: Duration
    var levels: CallAudioLevels
    var stats: MediaStats
    var quality: CallQuality
    var audio: CallAudioCounters
}

/// How a call ended, for the summary and the exit code.
struct CallOutcome: Sendable {
    var finalState: CallState
    /// From `start()` to media connected.
    var setupTime: Duration?
    /// From connected to the end (zero when it never connected).
    var connectedDuration: Duration
    var stats: MediaStats
    var quality: CallQuality
    var audio: CallAudioCounters

    /// 5 when the call ended normally but its WAV output could not be written to the end (disk full).
    var exitCode: Int32 {
        let code = Self.exitCode(for: finalState)
        return code == ExitCode.ok && audio.outputError != nil ? ExitCode.media : code
    }

    /// 0 ended, 2 configuration, 3 auth, 4 network/timeout, 5 media/device.
    static func exitCode(for state: CallState) -> Int32 {
        guard case .failed(let error) = state else { return ExitCode.ok }
        switch error {
        case .invalidConfiguration: return ExitCode.usage
        case .auth: return ExitCode.auth
        case .transport, .voice(.signalingFailed), .voice(.timedOut), .voice(.disconnected): return ExitCode.network
        case .voice(.mediaFailed), .voice(.interrupted), .voice(.deviceUnavailable): return ExitCode.media
        }
    }
}

/// Receives what happens during a call (text status line or NDJSON).
protocol CallReporter: Sendable {
    func state(_ state: CallState, elapsed: Duration)
    func tick(_ snapshot: CallSnapshot)
    func warning(_ event: QualityWarningEvent, elapsed: Duration)
    /// Writing the WAV output failed (once per call): recording stopped, the call goes on.
    func outputFailed(_ message: String, elapsed: Duration)
    func summary(_ outcome: CallOutcome)
}

enum CallRunner {
    /// Runs `run` on the cooperative pool and blocks the calling (main) thread until it finishes.
    static func runBlocking(
        config: Configuration, options: VoiceOptions, duration: Duration?, reporter: any CallReporter,
        stopWhenInputEnds: Duration? = nil
    ) -> CallOutcome {
        let box = OutcomeBox()
        let done = DispatchSemaphore(value: 0)
        Task {
            box.value = await run(
                config: config, options: options, duration: duration, reporter: reporter,
                stopWhenInputEnds: stopWhenInputEnds)
            done.signal()
        }
        done.wait()
        return box.value!
    }

    /// Places the call and follows it to its end.
    /// - Parameters:
    ///   - duration: hang up this long after connecting.
    ///   - stopWhenInputEnds: hang up this long after a finite input (WAV file) was fully sent.
    static func run(
        config: Configuration, options: VoiceOptions, duration: Duration?, reporter: any CallReporter,
        stopWhenInputEnds: Duration? = nil
    ) async -> CallOutcome {
        let call: PolyCall
        do {
            call = try PolyVoice.call(config: config, options: options)
        } catch {
            let outcome = CallOutcome(
                finalState: .failed(error), setupTime: nil, connectedDuration: .zero, stats: MediaStats(),
                quality: CallQuality(), audio: CallAudioCounters())
            reporter.state(.failed(error), elapsed: .zero)
            reporter.summary(outcome)
            return outcome
        }
        let clock = ContinuousClock()
        let started = clock.now
        let interrupts = InterruptHandler { Task { await call.end() } }
        defer { interrupts.stop() }

        let states = Task {
            var connectedAt: ContinuousClock.Instant?
            var endedAt: ContinuousClock.Instant?
            for await state in call.states {
                reporter.state(state, elapsed: clock.now - started)
                if state == .connected, connectedAt == nil { connectedAt = clock.now }
                if state.isTerminal { endedAt = clock.now }
            }
            guard let connectedAt else { return Duration.zero }
            return (endedAt ?? clock.now) - connectedAt
        }
        let warnings = Task {
            for await event in call.qualityWarnings { reporter.warning(event, elapsed: clock.now - started) }
        }

        try? await call.start()
        var lastStats = MediaStats()
        var connectedSince: ContinuousClock.Instant?
        var inputEndedAt: ContinuousClock.Instant?
        var nextTick = clock.now + .seconds(1)
        var outputFailureReported = false
        while !call.state.isTerminal {
            try? await Task.sleep(for: .milliseconds(50))
            if call.state == .connected, connectedSince == nil { connectedSince = clock.now }
            if !outputFailureReported, let failure = call.audioCounters.outputError {
                outputFailureReported = true
                reporter.outputFailed(failure, elapsed: clock.now - started)
            }
            if clock.now >= nextTick {
                nextTick += .seconds(1)
                let stats = await call.stats
                if stats.outboundRtp.packetsSent > 0 { lastStats = stats }
                reporter.tick(
                    CallSnapshot(
                        state: call.state, elapsed: clock.now - started, levels: call.levels, stats: lastStats,
                        quality: call.quality, audio: call.audioCounters))
            }
            if let stopWhenInputEnds, call.isInputFinished, connectedSince != nil {
                inputEndedAt = inputEndedAt ?? clock.now
                if clock.now - inputEndedAt! >= stopWhenInputEnds { await hangUp(call, keeping: &lastStats) }
            }
            if let duration, let since = connectedSince, clock.now - since >= duration {
                await hangUp(call, keeping: &lastStats)
            }
        }
        let connectedDuration = await states.value
        warnings.cancel()
        if !outputFailureReported, let failure = call.audioCounters.outputError {
            reporter.outputFailed(failure, elapsed: clock.now - started)  // failed in the call's last moments
        }
        let outcome = CallOutcome(
            finalState: call.state, setupTime: await call.setupTime, connectedDuration: connectedDuration,
            stats: lastStats, quality: call.quality, audio: call.audioCounters)
        reporter.summary(outcome)
        return outcome
    }

    /// Ends the call, keeping the last statistics from just before the media closes.
    private static func hangUp(_ call: PolyCall, keeping stats: inout MediaStats) async {
        let final = await call.stats
        if final.outboundRtp.packetsSent > 0 { stats = final }
        await call.end()
    }
}

private final class OutcomeBox: @unchecked Sendable {
    // Written by the task before the semaphore is signalled, read after the wait.
    var value: CallOutcome?
}

/// First Ctrl-C (or SIGTERM) hangs up cleanly; a second one exits at once (130).
final class InterruptHandler: @unchecked Sendable {
    // @unchecked: `count` is touched on the handler's serial queue only.
    private var sources: [any DispatchSourceSignal] = []
    private var count = 0

    init(onFirst: @escaping @Sendable () -> Void) {
        let queue = DispatchQueue(label: "polyvoice-signals")
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [unowned self] in
                count += 1
                if count == 1 {
                    printError("\nHanging up… (Ctrl-C again to quit at once)")
                    onFirst()
                } else {
                    exit(130)
                }
            }
            source.resume()
            return source
        }
    }

    func stop() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
