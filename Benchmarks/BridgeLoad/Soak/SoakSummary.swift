// The soak's figures: slopes after warm-up, packets lost by cause, calls completed, the bridge's memory per
// call, the time series (for the report's plot) and whether the targets hold.
import Foundation

struct SoakSummary: ResultJSON {
    struct MemoryAtCalls: Encodable {
        var calls: Int
        var rssMb: Double
    }

    var mode = "soak"
    var durationS: Double
    var concurrentCalls: Int
    var callLifetimeMinS: Double
    var callLifetimeMaxS: Double
    var seed: UInt64
    var warmupS: Double
    var sampleS: Double
    var callsCompleted = 0
    var setupFailures = 0
    var samples: [SoakSample] = []

    // The bridge's memory by calls (issue 19's ≤ 150 KB per added call).
    var bridgeIdle = ProcessResources()
    var bridgeMemoryByCalls: [MemoryAtCalls] = []
    var bridgeKbPerCallFromIdle: Double?
    var bridgeKbPerCallSecondHalf: Double?

    // After warm-up.
    var bridgeRss = Trend([])
    var generatorRss = Trend([])
    var bridgeDescriptors = Trend([])
    var bridgeThreads = Trend([])
    var generatorDescriptors = Trend([])
    var generatorThreads = Trend([])

    // The whole churn.
    var expectedPackets = 0.0
    var lostBridgeCpu = 0.0
    var lostGeneratorCpu = 0.0
    var lostOther = 0.0
    var bridgeLagMeanMs = 0.0
    var bridgeLagWorstP99Ms: Double?
    var bridgeLagTicksOver20Ms: UInt64 = 0
    var generatorLagMeanMs = 0.0
    var generatorLagTicksOver20Ms: UInt64 = 0

    // After every call hung up.
    var bridgeAfter = ProcessResources()
    /// 40 s after the last hang-up: after the bridge's heap trim.
    var bridgeRssSettledMb = 0.0
    var bridgeCallsLeft = 0.0
    var bridgeCallsEnded: [String: Double] = [:]
    var loadAverageStart = loadAverage()
    var loadAverageEnd = 0.0

    var targets = Targets()
    struct Targets: Encodable {
        var rssSlopeMbPerHourMax = 1.0
        var bridgeKbPerCallMax = 150.0
        var rssSlopeMet = false
        var noCpuCausedLoss = false
        var bridgeBackToIdle = false
    }

    init(settings: SoakSettings) {
        durationS = settings.duration
        concurrentCalls = settings.calls
        callLifetimeMinS = settings.lifetime.lowerBound
        callLifetimeMaxS = settings.lifetime.upperBound
        seed = settings.seed
        warmupS = settings.warmup
        sampleS = settings.sampleEvery
    }

    mutating func setPerCallMemory(idleRssMb: Double) {
        guard let all = bridgeMemoryByCalls.last, all.calls > 0 else { return }
        bridgeKbPerCallFromIdle = (all.rssMb - idleRssMb) * 1024 / Double(all.calls)
        if bridgeMemoryByCalls.count >= 2 {
            let half = bridgeMemoryByCalls[bridgeMemoryByCalls.count - 2]
            if all.calls > half.calls {
                bridgeKbPerCallSecondHalf = (all.rssMb - half.rssMb) * 1024 / Double(all.calls - half.calls)
            }
        }
    }

    mutating func finish() {
        let steady = samples.filter { $0.t >= warmupS }
        func trend(_ value: (SoakSample) -> Double) -> Trend { Trend(steady.map { ($0.t, value($0)) }) }
        bridgeRss = trend { $0.bridge.rssMb }
        generatorRss = trend { $0.generator.rssMb }
        bridgeDescriptors = trend { Double($0.bridge.descriptors) }
        bridgeThreads = trend { Double($0.bridge.threads) }
        generatorDescriptors = trend { Double($0.generator.descriptors) }
        generatorThreads = trend { Double($0.generator.threads) }
        expectedPackets = samples.reduce(0) { $0 + $1.expectedPackets }
        lostBridgeCpu = samples.reduce(0) { $0 + $1.bridgeCausedLoss }
        lostGeneratorCpu = samples.reduce(0) { $0 + $1.generatorCausedLoss }
        lostOther = samples.reduce(0) { $0 + $1.otherLoss }
        bridgeLagMeanMs = samples.isEmpty ? 0 : samples.reduce(0) { $0 + $1.bridge.lagMeanMs } / Double(samples.count)
        generatorLagMeanMs =
            samples.isEmpty ? 0 : samples.reduce(0) { $0 + $1.generator.lagMeanMs } / Double(samples.count)
        bridgeLagWorstP99Ms =
            samples.contains { $0.bridge.lagP99Ms == nil } ? nil : samples.compactMap(\.bridge.lagP99Ms).max()
        bridgeLagTicksOver20Ms = samples.reduce(0) { $0 + $1.bridge.lagTicksOver20Ms }
        generatorLagTicksOver20Ms = samples.reduce(0) { $0 + $1.generator.lagTicksOver20Ms }
        let slopes = [bridgeRss.perHour, generatorRss.perHour]
        targets.rssSlopeMet = slopes.allSatisfy { $0.map { $0 <= targets.rssSlopeMbPerHourMax } ?? false }
        targets.noCpuCausedLoss = lostBridgeCpu == 0 && lostGeneratorCpu == 0
        targets.bridgeBackToIdle =
            bridgeCallsLeft == 0 && bridgeAfter.descriptors <= bridgeIdle.descriptors
            && bridgeAfter.threads <= bridgeIdle.threads
    }

}

extension ProcessResources: Encodable {
    enum CodingKeys: String, CodingKey { case rssMb, descriptors, threads }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(residentBytes / 1_048_576, forKey: .rssMb)
        try container.encode(descriptors, forKey: .descriptors)
        try container.encode(threads, forKey: .threads)
    }
}

extension SoakSummary {
    /// The figures as lines for the log.
    func report() -> [String] {
        let perCall = [bridgeKbPerCallFromIdle, bridgeKbPerCallSecondHalf].map { $0.map { fmt($0) } ?? "n/a" }
        return [
            "calls completed \(callsCompleted), setup failures \(setupFailures); samples \(samples.count)",
            "after \(fmt(warmupS)) s warm-up: bridge RSS \(bridgeRss.described("MB")), generator RSS \(generatorRss.described("MB"))",
            "  bridge fds \(bridgeDescriptors.described("")), threads \(bridgeThreads.described(""))",
            "  generator fds \(generatorDescriptors.described("")), threads \(generatorThreads.described(""))",
            "packets owed \(fmt(expectedPackets)); lost to the bridge's CPU \(fmt(lostBridgeCpu)), to the generator's "
                + "CPU \(fmt(lostGeneratorCpu)), other \(fmt(lostOther))",
            "frame-clock lag: bridge mean \(fmt(bridgeLagMeanMs, 2)) ms, worst p99 ≤ "
                + "\(bridgeLagWorstP99Ms.map { fmt($0) + " ms" } ?? "> 200 ms"), ticks ≥ 20 ms late "
                + "\(bridgeLagTicksOver20Ms); generator mean \(fmt(generatorLagMeanMs, 2)) ms, ticks ≥ 20 ms late "
                + "\(generatorLagTicksOver20Ms)",
            "bridge memory per added call: \(perCall[0]) KB from idle to \(concurrentCalls), \(perCall[1]) KB over "
                + "the second half (target ≤ \(fmt(targets.bridgeKbPerCallMax)) KB)",
            "after all hung up: bridge calls left \(fmt(bridgeCallsLeft)), fds \(bridgeAfter.descriptors) (idle "
                + "\(bridgeIdle.descriptors)), threads \(bridgeAfter.threads) (idle \(bridgeIdle.threads)); ended by "
                + "outcome \(bridgeCallsEnded.sorted { $0.key < $1.key }.map { "\($0.key) \(fmt($0.value))" }.joined(separator: ", "))",
            "targets: RSS slope ≤ \(fmt(targets.rssSlopeMbPerHourMax)) MB/h \(targets.rssSlopeMet ? "met" : "NOT met"); "
                + "zero CPU-caused loss \(targets.noCpuCausedLoss ? "met" : "NOT met"); bridge back to idle "
                + "\(targets.bridgeBackToIdle ? "yes" : "NO")",
        ]
    }
}
