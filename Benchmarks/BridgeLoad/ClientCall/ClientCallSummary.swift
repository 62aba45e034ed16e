// The long call's figures: RSS slope after warm-up, jitter-buffer delay and clock drift over time, the echo's
// PESQ-WB early and late, and how the call ended.
import Foundation

struct ClientCallSummary: ResultJSON {
    struct Sample: Encodable {
        var t: Double
        var rssMb: Double
        var descriptors: Int
        var threads: Int
        var cpuPercent: Double
        var bridgeRssMb: Double
        /// Mean jitter-buffer delay of the samples played over the last interval, and the drift at its end.
        var jitterDelayMs: Double?
        var driftMs: Double?

        init(
            t: Double, call: ProcessResources, cpuPercent: Double, bridgeRssMb: Double, stats: [CallStatsLine],
            window: Double
        ) {
            self.t = t
            rssMb = call.residentBytes / 1_048_576
            descriptors = call.descriptors
            threads = call.threads
            self.cpuPercent = cpuPercent
            self.bridgeRssMb = bridgeRssMb
            if let last = stats.last {
                jitterDelayMs = ClientCallSummary.meanDelay(stats, from: last.elapsed - window, to: last.elapsed)
                driftMs = ClientCallSummary.drift(stats).last?.ms
            }
        }

        var tableRow: String {
            let cells = [
                fmt(t), fmt(rssMb, 1), "\(descriptors)", "\(threads)", fmt(cpuPercent, 1), fmt(bridgeRssMb, 1),
                jitterDelayMs.map { fmt($0, 1) } ?? "—", driftMs.map { fmt($0, 1) } ?? "—",
            ]
            return "| " + cells.joined(separator: " | ") + " |"
        }
    }

    var mode = "client-call"
    var durationS: Double
    var warmupS: Double
    var periodS: Double
    var samples: [Sample] = []
    var exitCode = -1
    var result = ""
    var endedNormally = false
    var callRss = Trend([])
    var callDescriptors = Trend([])
    var callThreads = Trend([])
    var jitterDelay = Trend([])
    /// Far-end RTP time less the call's audio clock, ms, since 5 s after playout began: slope and range.
    var drift = Trend([])
    var echo: [EchoPeriods.Score] = []
    var pesqEarly: Double?
    var pesqLate: Double?
    var echoDelayEarlyMs: Double?
    var echoDelayLateMs: Double?
    var packetsLost = 0.0
    var concealedSamples = 0.0
    var loadAverageStart = loadAverage()
    var loadAverageEnd = 0.0
    var targets = Targets()
    struct Targets: Encodable {
        var rssSlopeMbPerHourMax = 1.0
        /// The late echo may score at most this much below the early one.
        var pesqDropMax = 0.1
        var rssSlopeMet = false
        var sameQuality = false
    }

    init(durationS: Double, warmupS: Double, periodS: Double) {
        self.durationS = durationS
        self.warmupS = warmupS
        self.periodS = periodS
    }

    /// Mean delay of the samples emitted between two stats lines (the cumulative mean, weighted back out).
    static func meanDelay(_ stats: [CallStatsLine], from: Double, to: Double) -> Double? {
        guard let a = stats.last(where: { $0.elapsed <= from }), let b = stats.last(where: { $0.elapsed <= to }),
            b.emittedSamples > a.emittedSamples
        else { return nil }
        return (b.meanDelayMs * b.emittedSamples - a.meanDelayMs * a.emittedSamples)
            / (b.emittedSamples - a.emittedSamples)
    }

    /// Each line's drift: how far the far end's RTP time ran ahead of the samples played (both since a line 5 s
    /// after playout began), in ms. Flat when the clocks agree; the jitter buffer's level moves it a little.
    static func drift(_ stats: [CallStatsLine]) -> [(elapsed: Double, ms: Double)] {
        guard let first = stats.first(where: { $0.playedSamples > 0 && $0.rtpSeconds > 0 }),
            let reference = stats.first(where: { $0.elapsed >= first.elapsed + 5 })
        else { return [] }
        return stats.filter { $0.elapsed >= reference.elapsed }.map { line in
            let rtp = line.rtpSeconds - reference.rtpSeconds
            let played = (line.playedSamples - reference.playedSamples) / 48_000
            return (line.elapsed, (rtp - played) * 1000)
        }
    }

    mutating func finish(stats: [CallStatsLine]) {
        endedNormally = exitCode == 0 && result == "ended"
        let steady = samples.filter { $0.t >= warmupS }
        callRss = Trend(steady.map { ($0.t, $0.rssMb) })
        callDescriptors = Trend(steady.map { ($0.t, Double($0.descriptors)) })
        callThreads = Trend(steady.map { ($0.t, Double($0.threads)) })
        jitterDelay = Trend(samples.compactMap { sample in sample.jitterDelayMs.map { (sample.t, $0) } })
        drift = Trend(Self.drift(stats).filter { $0.elapsed >= warmupS }.map { ($0.elapsed, $0.ms) })
        func mean(_ values: [Double]) -> Double? { values.isEmpty ? nil : values.reduce(0, +) / Double(values.count) }
        let early = echo.prefix(3)
        let late = echo.count >= 6 ? echo.suffix(3) : []
        pesqEarly = mean(early.map(\.pesqWb))
        pesqLate = mean(late.map(\.pesqWb))
        echoDelayEarlyMs = mean(early.map(\.delayMs))
        echoDelayLateMs = mean(late.map(\.delayMs))
        if let last = stats.last {
            packetsLost = last.packetsLost
            concealedSamples = last.concealedSamples
        }
        targets.rssSlopeMet = callRss.perHour.map { $0 <= targets.rssSlopeMbPerHourMax } ?? false
        if let pesqEarly, let pesqLate { targets.sameQuality = pesqLate >= pesqEarly - targets.pesqDropMax }
    }

    func report() -> [String] {
        let scores = echo.map { "\(fmt($0.startS))s \(fmt($0.pesqWb, 2))" }.joined(separator: ", ")
        return [
            "the call ended: \(result), exit code \(exitCode) (\(endedNormally ? "normally" : "NOT normally"))",
            "after \(fmt(warmupS)) s warm-up: call RSS \(callRss.described("MB")), fds \(callDescriptors.described("")), "
                + "threads \(callThreads.described(""))",
            "jitter-buffer delay per interval: \(jitterDelay.described("ms")); drift RTP time − audio clock: "
                + "\(drift.described("ms"))",
            "echo PESQ-WB by period start: \(scores)",
            "early \(pesqEarly.map { fmt($0, 2) } ?? "n/a"), late \(pesqLate.map { fmt($0, 2) } ?? "n/a"); echo delay "
                + "early \(echoDelayEarlyMs.map { fmt($0) } ?? "n/a") ms, late \(echoDelayLateMs.map { fmt($0) } ?? "n/a") ms",
            "packets lost \(fmt(packetsLost)), concealed samples \(fmt(concealedSamples))",
            "targets: RSS slope ≤ \(fmt(targets.rssSlopeMbPerHourMax)) MB/h \(targets.rssSlopeMet ? "met" : "NOT met"); "
                + "same quality late as early (≤ \(targets.pesqDropMax) lower) \(targets.sameQuality ? "met" : "NOT met"); "
                + "ended normally \(endedNormally ? "yes" : "NO")",
        ]
    }

}
