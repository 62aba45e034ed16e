// Pitch-preserving time-scale modification on test tones.
import PolyCore
import Foundation
import Testing

@testable import PolyMedia

@Suite struct JitterTimeStretchTests {
    func tone(_ frequency: Double, count: Int = 1920) -> [Int16] {
        (0..<count).map { Int16(8000 * sin(2 * .pi * frequency * Double($0) / 48000)) }
    }

    @Test(arguments: [120.0, 200.0, 333.0])
    func accelerateAndExpandKeepPitchWithinOnePercent(frequency: Double) throws {
        let x = tone(frequency)
        var output = [Int16](repeating: 0, count: 3000)
        try x.withUnsafeBufferPointer { input in
            let lag = try #require(TimeStretcher.stretchLag(input))
            #expect(abs(Double(lag) - 48000 / frequency) <= 1 || abs(Double(lag) - 96000 / frequency) <= 2)
            let shorter = output.withUnsafeMutableBufferPointer { TimeStretcher.accelerate(input, lag: lag, into: $0) }
            #expect(shorter == 1920 - lag)
            let period = try #require(measuredPeriod(output[0..<shorter]))
            #expect(abs(period - 48000 / frequency) / (48000 / frequency) < 0.01)
            let longer = output.withUnsafeMutableBufferPointer {
                TimeStretcher.preemptiveExpand(input, lag: lag, into: $0)
            }
            #expect(longer == 1920 + lag)
            let stretched = try #require(measuredPeriod(output[0..<longer]))
            #expect(abs(stretched - 48000 / frequency) / (48000 / frequency) < 0.01)
        }
    }

    @Test func noiseIsNotStretched() {
        var random = SeededRandom(seed: 1)
        let noise = (0..<960).map { _ in Int16(random.normal(standardDeviation: 6000)) }
        #expect(noise.withUnsafeBufferPointer { TimeStretcher.stretchLag($0) } == nil)
    }

    @Test func quietAudioIsStretchable() {
        var random = SeededRandom(seed: 2)
        let hiss = (0..<960).map { _ in Int16(random.normal(standardDeviation: 50)) }
        #expect(hiss.withUnsafeBufferPointer { TimeStretcher.stretchLag($0) } != nil)
    }

    /// A voiced buzz (12 harmonics) whose pitch glides from 95 to 330 Hz, with noise, in 20 ms blocks.
    func glidingVoice(blocks: Int, seed: UInt64) -> [[Int16]] {
        var random = SeededRandom(seed: seed)
        var phase = 0.0
        return (0..<blocks).map { block in
            (0..<960).map { i in
                let t = Double(block * 960 + i) / 48000
                phase += 2 * .pi * (95 + 235 * t / (Double(blocks) * 0.02)) / 48000
                let buzz = (1...12).reduce(0.0) { $0 + sin(Double($1) * phase) / Double($1) }
                return Int16(clamping: Int(6000 * buzz + random.normal(standardDeviation: 300)))
            }
        }
    }

    /// The reference: every lag, normalised correlation over one period (the search before decimation).
    func exhaustiveBestLag(_ x: [Int16]) -> (lag: Int, correlation: Double) {
        var best = (lag: 0, correlation: -2.0)
        for lag in TimeStretcher.minimumLag...min(TimeStretcher.maximumLag, x.count / 2) {
            var (cross, a2, b2) = (0.0, 0.0, 0.0)
            for i in 0..<lag {
                let (a, b) = (Double(x[i]), Double(x[i + lag]))
                cross += a * b
                a2 += a * a
                b2 += b * b
            }
            let correlation = a2 * b2 > 0 ? cross / (a2 * b2).squareRoot() : 0
            if correlation > best.correlation { best = (lag, correlation) }
        }
        return best
    }

    @Test func decimatedSearchFindsWhatTheExhaustiveSearchFinds() throws {
        var agreeing = 0
        var sameDecision = 0
        let blocks = glidingVoice(blocks: 100, seed: 4)
        for block in blocks {
            let reference = exhaustiveBestLag(block)
            let fast = try #require(block.withUnsafeBufferPointer { TimeStretcher.bestLag($0) })
            // The refined correlation is exact, so it can only be lower than the reference's maximum.
            #expect(fast.correlation <= reference.correlation + 1e-9)
            if fast.correlation >= reference.correlation - 0.01 { agreeing += 1 }
            let voiced = TimeStretcher.voicedCorrelation
            if (fast.correlation >= voiced) == (reference.correlation >= voiced) { sameDecision += 1 }
        }
        #expect(agreeing >= 97, "fast search within 0.01 of the exhaustive maximum on \(agreeing)/100 blocks")
        #expect(sameDecision >= 98, "same voiced/unvoiced decision on \(sameDecision)/100 blocks")
    }
}
