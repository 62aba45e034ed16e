// One 10 s sample of the soak: both processes' resources and lag, and the interval's packets by cause.
import PolyNet

/// A process's figures in one sample.
struct ProcessFigures: Encodable {
    var rssMb: Double
    var descriptors: Int
    var threads: Int
    /// CPU over the interval, percent of one core.
    var cpuPercent: Double
    /// Frame-clock lateness over the interval: mean, the bucket bound holding the 99th percentile (nil: above
    /// the last bound, 200 ms), and ticks a whole frame (20 ms) or more late.
    var lagMeanMs: Double
    var lagP99Ms: Double?
    var lagTicksOver20Ms: UInt64

    init(resources: ProcessResources, cpuSeconds: Double, seconds: Double, lag: EventLoopLagSnapshot) {
        rssMb = resources.residentBytes / 1_048_576
        descriptors = resources.descriptors
        threads = resources.threads
        cpuPercent = seconds > 0 ? cpuSeconds / seconds * 100 : 0
        lagMeanMs = lag.meanSeconds * 1000
        let p99 = lag.quantileUpperBound(0.99)
        lagP99Ms = p99.isFinite ? p99 * 1000 : nil
        let over = EventLoopLagSnapshot.bucketBounds.firstIndex(of: 0.02).map { $0 + 1 } ?? lag.bucketCounts.count
        lagTicksOver20Ms = lag.bucketCounts[over...].reduce(0, +)
    }
}

struct SoakSample: Encodable {
    /// Seconds since the churn began, at the sample.
    var t: Double
    var liveCalls: Int
    var bridge: ProcessFigures
    var generator: ProcessFigures
    /// Packets owed each way over the interval (50 per call-second), and those lost by cause (see
    /// `StepResult`): the bridge's CPU (its sockets overflowed, its clock fell behind, packets it never
    /// sent), the generator's CPU (its sockets overflowed, it sent under what it owed), anything else
    /// (caller packets missing at the bridge with no socket drop to explain them).
    var expectedPackets: Double
    var bridgeCausedLoss: Double
    var generatorCausedLoss: Double
    var otherLoss: Double
    var callsCompleted: Int

    init(t: Double, liveCalls: Int, step r: StepResult, from a: Snapshot, to b: Snapshot, callsCompleted: Int) {
        self.t = t
        self.liveCalls = liveCalls
        bridge = ProcessFigures(
            resources: b.serverResources, cpuSeconds: r.serverCPU, seconds: r.seconds,
            lag: b.bridge.lag.since(a.bridge.lag))
        generator = ProcessFigures(
            resources: b.clientResources, cpuSeconds: r.clientCPU, seconds: r.seconds,
            lag: b.clientLag.since(a.clientLag))
        expectedPackets = 2 * r.expected
        bridgeCausedLoss = r.serverCausedLoss
        generatorCausedLoss = r.clientDrops + max(0, r.expected - r.clientSent - r.tolerance)
        otherLoss = max(0, r.serverLostGaps - r.serverDrops)
        self.callsCompleted = callsCompleted
    }
}

extension SoakSample {
    /// The sample as a row of the log's table.
    var tableRow: String {
        func lag(_ p: ProcessFigures) -> String { fmt(p.lagMeanMs, 2) }
        let cells = [
            fmt(t), "\(liveCalls)", "\(callsCompleted)", fmt(bridge.rssMb, 1), "\(bridge.descriptors)",
            "\(bridge.threads)",
            fmt(bridge.cpuPercent), lag(bridge), fmt(generator.rssMb, 1), "\(generator.descriptors)",
            "\(generator.threads)", fmt(generator.cpuPercent), lag(generator), fmt(expectedPackets),
            fmt(bridgeCausedLoss), fmt(generatorCausedLoss), fmt(otherLoss),
        ]
        return "| " + cells.joined(separator: " | ") + " |"
    }
}
