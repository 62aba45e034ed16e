// The concealment of a lone loss cross-faded into the next packet's audio, extended backwards by its pitch period.
import Foundation
import PolyCore
import Testing

@testable import PolyMedia

@Suite struct GapInterpolationTests {
    static func tone(_ frequency: Double, count: Int, from start: Int = 0, amplitude: Double = 8000) -> [Int16] {
        (start..<(start + count)).map { Int16(amplitude * sin(2 * .pi * frequency * Double($0) / 48000)) }
    }

    static func lag(_ x: [Int16]) -> Int? { x.withUnsafeBufferPointer { GapInterpolation.voicedLag($0) } }

    static func blend(_ concealment: inout [Int16], into next: [Int16]) -> Bool {
        next.withUnsafeBufferPointer { next in
            concealment.withUnsafeMutableBufferPointer { GapInterpolation.blend($0, into: next) }
        }
    }

    @Test(arguments: [(150.0, 320), (200.0, 240), (400.0, 120)])
    func theNextPacketsPeriodIsFound(frequency: Double, period: Int) {
        let found = Self.lag(Self.tone(frequency, count: 960))
        // The period or a multiple of it (which matches a steady tone as well): either extends it seamlessly.
        #expect(found.map { min($0 % period, period - $0 % period) <= 1 } == true)
    }

    @Test func noiseAndShortAudioAreNotInterpolated() {
        var random = SeededRandom(seed: 11)
        let noise = (0..<960).map { _ in Int16((random.unit() * 2 - 1) * 8000) }
        #expect(Self.lag(noise) == nil)
        #expect(Self.lag(Self.tone(200, count: 300)) == nil)  // shorter than a window past the shortest lag
        let concealment = Self.tone(130, count: 960, amplitude: 3000)
        var unchanged = concealment
        #expect(!Self.blend(&unchanged, into: noise))
        #expect(unchanged == concealment)
    }

    @Test func theGapStartsOnTheConcealmentAndEndsOnTheAudioAfterIt() {
        // A steady 200 Hz tone lost for one packet (samples 960..<1920): the decoder's PLC (here a quieter tone of
        // another pitch) fades into the next packet's tone extended backwards, which for a steady tone is the lost
        // audio itself.
        let next = Self.tone(200, count: 960, from: 1920)
        let lost = Self.tone(200, count: 960, from: 960)
        let concealment = Self.tone(130, count: 960, amplitude: 3000)
        var out = concealment
        #expect(Self.blend(&out, into: next))
        #expect(out[0] == concealment[0])
        #expect(abs(Int(out[959]) - Int(lost[959])) <= 1)
        // The last 2 ms are within 3 % of the lost audio (the concealment's weight there is below 2.5 %).
        #expect((864..<960).allSatisfy { abs(Int(out[$0]) - Int(lost[$0])) <= 240 })
        // Halfway both count equally.
        let mid = 480
        let expected = 0.5 * Double(concealment[mid]) + 0.5 * Double(lost[mid])
        #expect(abs(Double(out[mid]) - expected) <= 0.01 * 8000 + 1)
    }
}
