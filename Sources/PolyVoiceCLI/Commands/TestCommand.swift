// `polyvoice test`: conversation tests of a voice agent. Scenario files (JSON or YAML) script a caller;
// each call is measured (turns, latency, barge-in, false yields) and checked against the expectations.
import Dispatch
import FoundationEssentials
import PolyConversation
import PolyVoice

extension Subcommand {
    static let test = Subcommand(
        name: "test",
        summary: "Run conversation tests (scenario files) against a voice agent and measure its turns",
        help: """
            Usage: polyvoice test SCENARIO… (--bridge URL | --environment ENV) [options]

            Each SCENARIO (JSON or YAML) scripts a caller: say (espeak-ng), play a WAV, silence_s,
            wait_for_agent, barge_in_after_ms, backchannel. Every call is measured on the caller's clock
            (t = 0: the first frame sent): caller and agent turns, response latency, barge-in yield,
            false yields, overlaps, dead air, talk time, setup time and media statistics; then the
            scenario's `expect` block is checked. A bad scenario file is reported with its line or key
            path and nothing is called.

            The web calling token comes from POLYVOICE_WEBRTC_TOKEN or --token-file, as for `call`;
            it is never printed and there is no token option.

            Options:
              --bridge URL           Bridge base URL (e.g. http://127.0.0.1:8080/)
              --environment ENV      us, uk, euw, cluster:NAME or local:PORT
              --token-file F         File holding the web calling token
              --calls N              Calls per scenario, all in this process (default 1)
              --rate R               Start R calls per second (default: all at once)
              --seed N               Seed of call 0 (default: the scenario's seed; call K uses seed + K)
              --only-call K          Run only call K (with its seed from a full run), to rerun a failure
              --complexity N         Opus complexity of the callers' audio, 0-10 (default 5: half the
                                     encoder time of 9 for a voice the agent hears as well, so more
                                     calls fit in one process; timings do not depend on it)
              --report DIR           Write report.json, call-K.wav (stereo 48 kHz: caller left, agent as
                                     heard right, sample 0 = t 0), call-K-timeline.png and
                                     summary-latency.png (one folder per scenario when several)
              --junit FILE           JUnit XML: a test case per call and per expectation
              --json                 NDJSON on stdout: a line per call started and finished, a summary
              --verbose              Debug logs on stderr (secrets redacted)

            Exit codes: 0 every expectation held, 6 an expectation (or step) failed, otherwise the
            `call` codes: 2 usage or a bad scenario, 3 auth, 4 network/timeout, 5 media.
            """,
        run: { arguments in try TestCommand.run(arguments) }
    )
}

enum TestCommand {
    static let expectationFailed: Int32 = 6
    /// The callers' encoder complexity: a test caller's voice needs to reach the agent's recogniser intact,
    /// which 5 does at 48 kbit/s wideband (PESQ-WB within 0.1 of 9, docs/SENDER.md) for half the encoder's
    /// time, the largest share of a caller's CPU (Benchmarks/ConversationLoad).
    static let callerComplexity = 5

    static func run(_ arguments: [String]) throws -> Int32 {
        let parsed = try Arguments(
            arguments,
            valued: [
                "bridge", "environment", "token-file", "calls", "rate", "seed", "only-call", "complexity", "report",
                "junit",
            ],
            flagNames: ["json", "verbose"])
        guard !parsed.positionals.isEmpty else { throw UsageError("give at least one SCENARIO file") }
        var settings = SuiteSettings()
        settings.calls = try parsed.int("calls", in: 1...10_000) ?? 1
        settings.rate = try parsed.double("rate", in: 0.01...10_000)
        settings.seed = try parsed.int("seed", in: 0...Int(Int32.max)).map(UInt64.init)
        settings.onlyCall = try parsed.int("only-call", in: 0...9_999)
        if let only = settings.onlyCall, only >= settings.calls, parsed.string("calls") != nil {
            throw UsageError("--only-call \(only) is not below --calls \(settings.calls)")
        }
        var voice = VoiceOptions(audioProcessing: .off)
        voice.codec.complexity = try parsed.int("complexity", in: 0...10) ?? Self.callerComplexity
        let options = voice
        let defaults = try ClientDefaults.loadForCommand()
        let environment = try CallCommand.environment(parsed, defaults: defaults)
        let token = try CallCommand.webCallingToken(parsed, defaults: defaults)
        let scenarios = try loadScenarios(parsed.positionals)
        let config = Configuration(
            apiKey: ProcessInfo.processInfo.environment["POLYVOICE_API_KEY"].flatMap { $0.isEmpty ? nil : $0 }
                ?? "not-set", environment: environment, webrtcToken: token,
            logLevel: parsed.flag("verbose") ? .debug : .error)
        let output = TestOutput(json: parsed.flag("json"), total: settings.indices.count * scenarios.count)
        let box = SuiteBox()
        let done = DispatchSemaphore(value: 0)
        Task {
            for (scenario, steps) in scenarios {
                let results = await ConversationSuite.run(
                    scenario: scenario, steps: steps, settings: settings, config: config,
                    options: options
                ) { output.event($0, scenario: scenario) }
                box.suites.append((scenario, results))
            }
            done.signal()
        }
        done.wait()
        output.finish()
        let suites = box.suites
        if let directory = parsed.string("report") {
            for (position, (scenario, results)) in suites.enumerated() {
                let folder =
                    suites.count == 1
                    ? URL(fileURLWithPath: directory, isDirectory: true)
                    : URL(fileURLWithPath: directory, isDirectory: true).appendingPathComponent(
                        "\(position)-\(slug(scenario.name))", isDirectory: true)
                try ReportWriter.write(
                    scenario: scenario, seed: settings.seed ?? scenario.seed, results: results, to: folder)
            }
        }
        if let junit = parsed.string("junit") {
            try Data(JUnitReport.xml(suites: suites).utf8).write(to: URL(fileURLWithPath: junit))
        }
        output.summary(suites)
        return exitCode(suites.flatMap(\.results))
    }

    /// The first call failure's own code wins (the agent could not be measured); else 6 if anything failed.
    static func exitCode(_ results: [CallResult]) -> Int32 {
        if let code = results.compactMap(\.callExitCode).first { return code }
        return results.allSatisfy(\.ok) ? ExitCode.ok : expectationFailed
    }

    /// Loads, validates and prepares every scenario before any call: a bad file is a usage error.
    static func loadScenarios(_ paths: [String]) throws -> [(Scenario, [PreparedStep])] {
        var loaded: [(Scenario, [PreparedStep])] = []
        var problems: [String] = []
        for path in paths {
            do {
                let scenario = try ScenarioLoader.load(path: path)
                let base = URL(fileURLWithPath: path).deletingLastPathComponent()
                loaded.append((scenario, try StepPreparation.prepare(scenario, baseDirectory: base)))
            } catch {
                problems.append(error.description)
            }
        }
        guard problems.isEmpty else { throw UsageError(problems.joined(separator: "\n")) }
        return loaded
    }

    static func slug(_ name: String) -> String {
        let kept = name.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }
        return String(String(kept).split(separator: "-").joined(separator: "-").prefix(40))
    }
}

private final class SuiteBox: @unchecked Sendable {
    // Written by the task before the semaphore is signalled, read after the wait.
    var suites: [(scenario: Scenario, results: [CallResult])] = []
}
