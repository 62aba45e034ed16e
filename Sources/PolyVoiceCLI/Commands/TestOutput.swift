// What `polyvoice test` prints while it runs: a live progress line on a terminal (stderr), NDJSON with
// --json (stdout), and a summary per scenario at the end.
import Glibc
import PolyConversation
import PolyCore
import Synchronization

final class TestOutput: Sendable {
    private struct Progress {
        var done = 0
        var running = 0
        var failed = 0
        var latencies: [Double] = []
    }

    private let json: Bool
    private let total: Int
    private let live = isatty(STDERR_FILENO) != 0
    private let progress = Mutex(Progress())

    init(json: Bool, total: Int) {
        self.json = json
        self.total = total
    }

    func event(_ event: SuiteEvent, scenario: Scenario) {
        let line: String? = progress.withLock { state in
            switch event {
            case .started(let call, let seed):
                state.running += 1
                guard json else { return nil }
                return JSONValue.object([
                    ("type", .string("call_started")), ("scenario", .string(scenario.name)),
                    ("call", .number(Double(call))), ("seed", .number(Double(seed))),
                ]).text()
            case .finished(let result):
                state.running -= 1
                state.done += 1
                if !result.ok { state.failed += 1 }
                state.latencies += result.metrics.responseLatencies
                guard json else { return nil }
                var members: [(String, JSONValue)] = [("type", .string("call")), ("scenario", .string(scenario.name))]
                if case .object(let call) = ConversationReport.callJSON(result, audioFile: nil, timelineFile: nil) {
                    members += call.filter { $0.0 != "audio" && $0.0 != "timeline" }
                }
                return JSONValue.object(members).text()
            }
        }
        if let line { writeOut(line + "\n") }
        if live { StandardStream.error.write("\r\u{1B}[2K" + statusLine()) }
    }

    private func statusLine() -> String {
        progress.withLock { state in
            let p50 = Percentile.of(state.latencies, 50).map { "\(Int($0)) ms" } ?? "-"
            let p95 = Percentile.of(state.latencies, 95).map { "\(Int($0)) ms" } ?? "-"
            return "calls \(state.done)/\(total) done, \(state.running) running, \(state.failed) failed"
                + "  latency p50 \(p50) p95 \(p95)"
        }
    }

    func finish() {
        if live { StandardStream.error.write("\n") }
    }

    func summary(_ suites: [(scenario: Scenario, results: [CallResult])]) {
        for (scenario, results) in suites {
            let latencies = results.flatMap { $0.metrics.responseLatencies }
            if json {
                let document = ConversationReport.document(
                    scenario: scenario, seed: results.first?.seed ?? scenario.seed, calls: [], results: results)
                if case .object(let members) = document, let summary = members.first(where: { $0.0 == "summary" }) {
                    writeOut(
                        JSONValue.object([
                            ("type", .string("summary")), ("scenario", .string(scenario.name)), summary,
                        ]).text() + "\n")
                }
                continue
            }
            let passed = results.filter(\.ok).count
            var text = "\(scenario.name): \(passed)/\(results.count) calls passed"
            if let p50 = Percentile.of(latencies, 50), let p95 = Percentile.of(latencies, 95),
                let worst = latencies.max()
            {
                text += String(cFormat: "; response latency p50 %.0f ms, p95 %.0f ms, max %.0f ms", p50, p95, worst)
            }
            text += "\n"
            for result in results where !result.ok {
                text += "  call \(result.call) (seed \(result.seed)) failed:\n"
                for failure in result.failures { text += "    \(failure)\n" }
            }
            writeOut(text)
        }
    }
}
