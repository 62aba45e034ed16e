// What a conversation's turns mean: response latencies, barge-ins and yields, false yields, overlaps,
// dead air and talk time. Pure functions of the turns, so they are tested on turns a test writes down.

public struct DeadAir: Sendable, Equatable {
    /// The caller turn after which a reply was due.
    public var afterTurn: Int
    public var startMs: Double
    public var durationMs: Double
}

public struct ConversationMetrics: Sendable, Equatable {
    /// Every turn, annotated (latency, interruption, yield, false yield).
    public var turns: [MeasuredTurn]
    public var overlapCount = 0
    public var overlapMs = 0.0
    public var deadAir: [DeadAir] = []
    public var agentTalkMs = 0.0
    public var callerTalkMs = 0.0

    /// A backchannel followed by the agent stopping within this window is a false yield.
    public static let falseYieldWindowMs = 1000.0
    /// Silence longer than this when a reply was due is dead air.
    public static let deadAirThresholdMs = 2000.0

    public var responseLatencies: [Double] { turns.compactMap(\.responseLatencyMs) }
    public var yields: [Double] { turns.compactMap(\.yieldMs) }

    /// - Parameters:
    ///   - turns: both speakers' turns in time order (`TurnTracker.finished()`).
    ///   - endSample: the end of the call on the same clock (dead air after the last caller turn).
    public init(turns input: [MeasuredTurn], endSample: Int) {
        var turns = input.sorted { $0.startSample < $1.startSample }
        for index in turns.indices { turns[index].index = index }
        let agents = turns.indices.filter { turns[$0].speaker == .agent }
        let callers = turns.indices.filter { turns[$0].speaker == .caller }

        for a in agents {
            let start = turns[a].startSample
            // The reply is to the last caller turn (not a backchannel) that started before it, if that turn had
            // ended (else the agent talked over it) and no other agent turn started in between.
            guard
                let c = callers.last(where: {
                    turns[$0].startSample < start && turns[$0].kind != "backchannel"
                }), turns[c].endSample <= start
            else { continue }
            let callerEnd = turns[c].endSample
            let answeredAlready = agents.contains {
                $0 != a && turns[$0].startSample > callerEnd && turns[$0].startSample < start
            }
            if !answeredAlready {
                turns[a].responseLatencyMs = ConversationClock.milliseconds(start - callerEnd)
            }
        }
        for c in callers {
            let start = turns[c].startSample
            guard let a = agents.first(where: { turns[$0].startSample < start && turns[$0].endSample > start }) else {
                turns[c].interrupted = false
                continue
            }
            turns[c].interrupted = true
            let yieldMs = ConversationClock.milliseconds(turns[a].endSample - start)
            if turns[c].kind == "backchannel" {
                turns[c].falseYield = yieldMs <= Self.falseYieldWindowMs
            } else {
                turns[c].yieldMs = yieldMs
                turns[a].interrupted = true
            }
        }
        for a in agents where turns[a].interrupted == nil { turns[a].interrupted = false }

        for c in callers {
            for a in agents {
                let overlap =
                    min(turns[c].endSample, turns[a].endSample) - max(turns[c].startSample, turns[a].startSample)
                if overlap > 0 {
                    overlapCount += 1
                    overlapMs += ConversationClock.milliseconds(overlap)
                }
            }
        }
        for c in callers where turns[c].kind != "backchannel" {
            let end = turns[c].endSample
            let next = turns.filter { $0.startSample > end }.map(\.startSample).min() ?? endSample
            let gap = ConversationClock.milliseconds(next - end)
            let agentTalkingOver = agents.contains { turns[$0].startSample <= end && turns[$0].endSample > end }
            if gap > Self.deadAirThresholdMs, !agentTalkingOver {
                deadAir.append(DeadAir(afterTurn: c, startMs: ConversationClock.milliseconds(end), durationMs: gap))
            }
        }
        agentTalkMs = agents.reduce(0) { $0 + turns[$1].durationMs }
        callerTalkMs = callers.reduce(0) { $0 + turns[$1].durationMs }
        self.turns = turns
    }
}

/// Percentiles by nearest rank, as reports and expectations use them.
public enum Percentile {
    public static func of(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[max(0, min(sorted.count - 1, rank - 1))]
    }
}
