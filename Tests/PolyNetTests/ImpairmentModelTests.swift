import PolyCore
import Testing

@testable import PolyNet

/// Feeds `count` packets 20 ms apart through `model`; returns each packet's decision.
private func run(_ model: inout ImpairmentModel, count: Int, spacing: Duration = .milliseconds(20))
    -> [ImpairmentDecision]
{
    (0..<count).map { index in
        model.decide(packetAt: .zero + spacing * index, size: 160)
    }
}

private func standardDeviation(_ values: [Double]) -> Double {
    let mean = values.reduce(0, +) / Double(values.count)
    let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)
    return variance.squareRoot()
}

@Suite struct ImpairmentModelTests {
    static let busy = LinkImpairment(
        loss: .uniform(0.1), delay: .milliseconds(40), jitter: .milliseconds(15), duplication: 0.05)

    @Test func sameSeedSameFate() {
        var a = ImpairmentModel(Self.busy, seed: 42)
        var b = ImpairmentModel(Self.busy, seed: 42)
        var c = ImpairmentModel(Self.busy, seed: 43)
        let first = run(&a, count: 2000)
        #expect(first == run(&b, count: 2000))
        #expect(first != run(&c, count: 2000))
    }

    @Test func perfectLinkDeliversAtOnce() {
        var model = ImpairmentModel(.perfect, seed: 1)
        let decisions = run(&model, count: 100)
        for (index, decision) in decisions.enumerated() {
            #expect(decision.deliveries == [.zero + .milliseconds(20) * index])
        }
    }

    @Test(arguments: [0.01, 0.05, 0.2])
    func uniformLossRateMatches(probability: Double) {
        var model = ImpairmentModel(LinkImpairment(loss: .uniform(probability)), seed: 7)
        let count = 200_000
        let lost = run(&model, count: count).filter(\.isLost).count
        let rate = Double(lost) / Double(count)
        // Binomial standard error is √(p(1−p)/n) ≤ 0.0009 here; allow five of them.
        let tolerance = 5 * (probability * (1 - probability) / Double(count)).squareRoot()
        #expect(abs(rate - probability) < tolerance)
        #expect(model.counters.lost == lost)
    }

    @Test(arguments: [(0.05, 3.0), (0.1, 5.0), (0.02, 1.5)])
    func gilbertElliottMatchesMeanLossAndBurstLength(meanLoss: Double, burst: Double) {
        let channel = GilbertElliott(meanLoss: meanLoss, meanBurstLength: burst)
        #expect(abs(channel.meanLoss - meanLoss) < 1e-9)
        var model = ImpairmentModel(LinkImpairment(loss: .gilbertElliott(channel)), seed: 99)
        let lost = run(&model, count: 400_000).map(\.isLost)
        var bursts: [Int] = []
        var current = 0
        for isLost in lost {
            if isLost {
                current += 1
            } else if current > 0 {
                bursts.append(current)
                current = 0
            }
        }
        let rate = Double(lost.filter { $0 }.count) / Double(lost.count)
        let meanBurst = Double(bursts.reduce(0, +)) / Double(bursts.count)
        #expect(abs(rate - meanLoss) / meanLoss < 0.1)
        #expect(abs(meanBurst - burst) / burst < 0.1)
    }

    @Test(arguments: [JitterDistribution.normal, .pareto])
    func jitterStandardDeviationMatches(distribution: JitterDistribution) throws {
        let configuration = LinkImpairment(
            delay: .milliseconds(200), jitter: .milliseconds(10), jitterDistribution: distribution)
        var model = ImpairmentModel(configuration, seed: 5)
        let spacing = Duration.milliseconds(20)
        let delays = try run(&model, count: 100_000, spacing: spacing).enumerated().map { index, decision in
            try #require(decision.first).milliseconds - (spacing * index).inMilliseconds
        }
        let mean = delays.reduce(0, +) / Double(delays.count)
        #expect(abs(mean - 200) < 0.5)
        #expect(abs(standardDeviation(delays) - 10) < 0.6)
    }

    @Test func jitterLargerThanSpacingReordersUnlessOrderIsKept() throws {
        var configuration = LinkImpairment(delay: .milliseconds(50), jitter: .milliseconds(30))
        var reordering = ImpairmentModel(configuration, seed: 3)
        let arrivals = run(&reordering, count: 1000).compactMap(\.first)
        let overtaken = zip(arrivals, arrivals.dropFirst()).filter { $0 > $1 }.count
        #expect(overtaken > 100)

        configuration.keepsOrder = true
        var ordered = ImpairmentModel(configuration, seed: 3)
        let inOrder = run(&ordered, count: 1000).compactMap(\.first)
        #expect(inOrder == inOrder.sorted())
    }

    @Test func outageDropsExactlyTheWindow() {
        let window = Duration.milliseconds(1000)..<Duration.milliseconds(3000)
        let start = Instant.seconds(7)
        var model = ImpairmentModel(LinkImpairment(outages: [window]), seed: 1, start: start)
        for ms in stride(from: 0, to: 5000, by: 10) {
            let offset = Duration.milliseconds(ms)
            let decision = model.decide(packetAt: start + offset, size: 100)
            #expect(decision.isLost == window.contains(offset), "packet at +\(ms) ms")
        }
        #expect(model.counters.droppedInOutage == 200)
        #expect(model.counters.lost == 0)
    }

    @Test func duplicationRateMatches() {
        var model = ImpairmentModel(LinkImpairment(duplication: 0.03), seed: 11)
        let count = 200_000
        let copies = run(&model, count: count).filter { $0.deliveries.count == 2 }.count
        let rate = Double(copies) / Double(count)
        #expect(abs(rate - 0.03) < 5 * (0.03 * 0.97 / Double(count)).squareRoot())
        #expect(model.counters.duplicated == copies)
    }

    @Test func rateLimitQueuesPackets() {
        // 1000-byte packets on 800 kbit/s take 10 ms each: a burst of 5 leaves 10 ms apart.
        var model = ImpairmentModel(LinkImpairment(rateBitsPerSecond: 800_000), seed: 1)
        let arrivals = (0..<5).compactMap { _ in model.decide(packetAt: .zero, size: 1000).first }
        #expect(arrivals == [10, 20, 30, 40, 50].map { Instant.milliseconds($0) })
    }
}
