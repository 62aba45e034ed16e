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
}
