// report.json, the contract of `polyvoice test --report DIR`: the scenario, every call (turns, failures,
// stats) and a summary across calls. Times are milliseconds on the caller's clock (t = 0: first frame sent).
import PolyMedia
import PolyVoice

public enum ConversationReport {
    public static func callJSON(_ result: CallResult, audioFile: String?, timelineFile: String?) -> JSONValue {
        let m = result.metrics
        let turns: [JSONValue] = m.turns.map { turn in
            var members: [(String, JSONValue)] = [
                ("index", .number(Double(turn.index))), ("speaker", .string(turn.speaker.rawValue)),
                ("start_ms", .number(round1(turn.startMs))), ("end_ms", .number(round1(turn.endMs))),
            ]
            if turn.speaker == .agent {
                members.append(("response_latency_ms", .optional(turn.responseLatencyMs.map(round1))))
            } else {
                members.append(("kind", .optional(turn.kind)))
                members.append(("step", .optional(turn.step.map(Double.init))))
            }
            members.append(("interrupted", .optional(turn.interrupted)))
            if turn.speaker == .caller {
                members.append(("yield_ms", .optional(turn.yieldMs.map(round1))))
                members.append(("false_yield", .optional(turn.falseYield)))
            }
            return .object(members)
        }
        let steps: [JSONValue] = result.steps.map { step in
            .object([
                ("index", .number(Double(step.index))), ("kind", .string(step.kind)), ("path", .string(step.path)),
                ("start_ms", .optional(step.startMs.map(round1))), ("end_ms", .optional(step.endMs.map(round1))),
                ("scheduled_ms", .optional(step.scheduledMs.map(round1))),
                ("dtmf_method", .optional(step.dtmfMethod)), ("ok", .bool(step.failure == nil)),
                ("failure", .optional(step.failure)),
            ])
        }
        let latencies = m.responseLatencies
        return .object([
            ("call", .number(Double(result.call))), ("seed", .number(Double(result.seed))), ("ok", .bool(result.ok)),
            ("failures", .array(result.failures.map { .string($0) })),
            ("state", .string("\(result.finalState)")),
            ("setup_ms", .optional(result.setupMs.map(round1))),
            ("audio", .optional(audioFile)), ("timeline", .optional(timelineFile)),
            ("turns", .array(turns)), ("steps", .array(steps)),
            (
                "expectations",
                .array(
                    result.expectations.map {
                        .object([
                            ("name", .string($0.name)), ("ok", .bool($0.failure == nil)),
                            ("failure", .optional($0.failure)),
                        ])
                    })
            ),
            (
                "measurements",
                .object([
                    ("response_latency_ms", latencySummary(latencies)),
                    ("yield_ms", .array(m.yields.map { .number(round1($0)) })),
                    ("false_yields", .number(Double(m.turns.filter { $0.falseYield == true }.count))),
                    ("overlaps", .number(Double(m.overlapCount))), ("overlap_ms", .number(round1(m.overlapMs))),
                    (
                        "dead_air",
                        .array(
                            m.deadAir.map {
                                .object([
                                    ("after_turn", .number(Double($0.afterTurn))),
                                    ("start_ms", .number(round1($0.startMs))),
                                    ("duration_ms", .number(round1($0.durationMs))),
                                ])
                            })
                    ),
                    ("agent_talk_ms", .number(round1(m.agentTalkMs))),
                    ("caller_talk_ms", .number(round1(m.callerTalkMs))),
                    ("caller_underrun_ms", .number(round1(result.underrunMs))),
                    ("audio_clock_lag_ms", .number(round1(result.clockLagMs))),
                ])
            ),
            ("stats", stats(result)),
        ])
    }

    static func stats(_ result: CallResult) -> JSONValue {
        let s = result.stats
        let received = Double(s.inboundRtp.totalSamplesReceived)
        return .object([
            ("mos", .optional(result.quality.mos)), ("loss_fraction", .number(result.quality.lossFraction)),
            ("packets_sent", .number(Double(s.outboundRtp.packetsSent))),
            ("packets_received", .number(Double(s.inboundRtp.packetsReceived))),
            ("packets_lost", .number(Double(s.inboundRtp.packetsLost))),
            ("jitter_ms", .number(round1(s.inboundRtp.jitter * 1000))),
            ("rtt_ms", .optional(s.remoteInboundRtp.roundTripTime.map { round1($0 * 1000) })),
            ("concealed_fraction", .number(received > 0 ? Double(s.inboundRtp.concealedSamples) / received : 0)),
            (
                "jitter_buffer_delay_ms",
                .number(
                    s.inboundRtp.jitterBufferEmittedCount > 0
                        ? round1(s.inboundRtp.jitterBufferDelay / Double(s.inboundRtp.jitterBufferEmittedCount) * 1000)
                        : 0)
            ),
            ("w3c", w3c(s)),
        ])
    }

    /// The W3C inbound-rtp / outbound-rtp / remote-inbound-rtp fields as the SDK reports them.
    static func w3c(_ stats: MediaStats) -> JSONValue {
        let i = stats.inboundRtp
        let o = stats.outboundRtp
        let r = stats.remoteInboundRtp
        return .object([
            (
                "inbound-rtp",
                .object([
                    ("packetsReceived", .number(Double(i.packetsReceived))),
                    ("packetsLost", .number(Double(i.packetsLost))),
                    ("jitter", .number(i.jitter)), ("packetsDiscarded", .number(Double(i.packetsDiscarded))),
                    ("fecPacketsReceived", .number(Double(i.fecPacketsReceived))),
                    ("jitterBufferDelay", .number(i.jitterBufferDelay)),
                    ("jitterBufferEmittedCount", .number(Double(i.jitterBufferEmittedCount))),
                    ("totalSamplesReceived", .number(Double(i.totalSamplesReceived))),
                    ("concealedSamples", .number(Double(i.concealedSamples))),
                    ("concealmentEvents", .number(Double(i.concealmentEvents))),
                    ("insertedSamplesForDeceleration", .number(Double(i.insertedSamplesForDeceleration))),
                    ("removedSamplesForAcceleration", .number(Double(i.removedSamplesForAcceleration))),
                ])
            ),
            (
                "outbound-rtp",
                .object([("packetsSent", .number(Double(o.packetsSent))), ("bytesSent", .number(Double(o.bytesSent)))])
            ),
            (
                "remote-inbound-rtp",
                .object([
                    ("roundTripTime", .optional(r.roundTripTime)), ("fractionLost", .optional(r.fractionLost)),
                    ("packetsLost", .optional(r.packetsLost.map(Double.init))), ("jitter", .optional(r.jitter)),
                ])
            ),
        ])
    }

    public static func latencySummary(_ values: [Double]) -> JSONValue {
        let p50: Double? = Percentile.of(values, 50).map(round1)
        let p95: Double? = Percentile.of(values, 95).map(round1)
        let high: Double? = values.max().map(round1)
        let low: Double? = values.min().map(round1)
        var spread: Double?
        if let high, let low { spread = round1(high - low) }
        let members: [(String, JSONValue)] = [
            ("count", .number(Double(values.count))), ("p50", .optional(p50)), ("p95", .optional(p95)),
            ("max", .optional(high)), ("min", .optional(low)), ("spread", .optional(spread)),
        ]
        return .object(members)
    }

    /// The whole report: `{"scenario", "seed", "calls": [...], "summary": {...}}`.
    public static func document(
        scenario: Scenario, seed: UInt64, calls: [JSONValue], results: [CallResult]
    ) -> JSONValue {
        let latencies = results.flatMap { $0.metrics.responseLatencies }
        let yields = results.flatMap { $0.metrics.yields }
        let passed = results.filter(\.ok).count
        var falseYields = 0
        var deadAir = 0
        for result in results {
            falseYields += result.metrics.turns.filter { $0.falseYield == true }.count
            deadAir += result.metrics.deadAir.count
        }
        let summary: [(String, JSONValue)] = [
            ("calls", .number(Double(results.count))), ("passed", .number(Double(passed))),
            ("failed", .number(Double(results.count - passed))),
            ("response_latency_ms", latencySummary(latencies)), ("yield_ms", latencySummary(yields)),
            ("setup_ms", latencySummary(results.compactMap(\.setupMs))),
            ("false_yields", .number(Double(falseYields))), ("dead_air", .number(Double(deadAir))),
        ]
        let clock =
            "ms since the first audio frame the caller sent; audio: 48 kHz stereo, caller left, agent as heard right"
        let members: [(String, JSONValue)] = [
            ("scenario", .string(scenario.name)), ("file", .string(scenario.sourceFile)),
            ("seed", .number(Double(seed))),
            ("clock", .string(clock)), ("calls", .array(calls)), ("summary", .object(summary)),
        ]
        return .object(members)
    }
}

func round1(_ value: Double) -> Double { (value * 10).rounded() / 10 }
