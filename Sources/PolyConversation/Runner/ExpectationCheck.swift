// The scenario's `expect` block against one call's measurements: each expectation holds or fails with a reason.

public enum ExpectationCheck {
    public static func check(_ expect: Expectations, _ metrics: ConversationMetrics) -> [(
        name: String, failure: String?
    )] {
        var results: [(String, String?)] = []
        let latencies = metrics.responseLatencies
        func format(_ value: Double) -> String { String(Int(value.rounded())) }
        if let bounds = expect.responseLatencyMs {
            if latencies.isEmpty {
                results.append(("response_latency_ms", "no agent reply was measured"))
            } else {
                var problems: [String] = []
                let worst = latencies.max()!
                if let max = bounds.max, worst > max { problems.append("max \(format(worst)) ms > \(format(max))") }
                if let p95 = bounds.p95Max, let value = Percentile.of(latencies, 95), value > p95 {
                    problems.append("p95 \(format(value)) ms > \(format(p95))")
                }
                if let p50 = bounds.p50Max, let value = Percentile.of(latencies, 50), value > p50 {
                    problems.append("p50 \(format(value)) ms > \(format(p50))")
                }
                if let min = bounds.min, let best = latencies.min(), best < min {
                    problems.append("min \(format(best)) ms < \(format(min))")
                }
                results.append(("response_latency_ms", problems.isEmpty ? nil : problems.joined(separator: "; ")))
            }
        }
        if let within = expect.agentYieldsWithinMs {
            let barges = metrics.turns.filter {
                $0.speaker == .caller && $0.kind != "backchannel" && $0.interrupted == true
            }
            if barges.isEmpty {
                results.append(("agent_yields_within_ms", "no caller turn interrupted the agent"))
            } else {
                let slow = barges.filter { ($0.yieldMs ?? .infinity) > within }
                let detail = slow.map {
                    "turn \($0.index) at \(format($0.startMs)) ms: agent stopped after \(format($0.yieldMs ?? 0)) ms"
                }
                results.append(
                    (
                        "agent_yields_within_ms",
                        slow.isEmpty ? nil : detail.joined(separator: "; ") + " > \(format(within))"
                    ))
            }
        }
        if expect.noFalseYield == true {
            let falseYields = metrics.turns.filter { $0.falseYield == true }
            let detail = falseYields.map { "the agent stopped after the backchannel at \(format($0.startMs)) ms" }
            results.append(("no_false_yield", falseYields.isEmpty ? nil : detail.joined(separator: "; ")))
        }
        if let speaks = expect.agentSpeaks {
            let spoke = metrics.turns.contains { $0.speaker == .agent }
            results.append(
                ("agent_speaks", spoke == speaks ? nil : (speaks ? "the agent never spoke" : "the agent spoke")))
        }
        if let maxDeadAir = expect.maxDeadAirMs {
            let long = metrics.deadAir.filter { $0.durationMs > maxDeadAir }
            let detail = long.map { "\(format($0.durationMs)) ms of silence at \(format($0.startMs)) ms" }
            results.append(("max_dead_air_ms", long.isEmpty ? nil : detail.joined(separator: "; ")))
        }
        return results
    }
}
