import Foundation
import Testing

@testable import PolyMedia

@Suite struct PauseDetectorTests {
    private static let block = 960  // 20 ms at 48 kHz

    private static func speech() -> [Int16] {
        (0..<block).map { n in
            let phase = 2 * Double.pi * 190 * Double(n) / 48_000
            return Int16(8000 * sin(phase))
        }
    }

    private static func quiet() -> [Int16] { [Int16](repeating: 0, count: block) }

    private static func pauses(_ blocks: [[Int16]]) -> [Bool] {
        var detector = PauseDetector(sampleRate: 48_000)
        return blocks.map { samples in samples.withUnsafeBufferPointer { detector.isPause($0) } }
    }

    @Test func aQuietBlockInsideSpeechIsNotAPause() {
        let s = Self.speech()
        let q = Self.quiet()
        #expect(Self.pauses([s, s, q, s, s, q, q, s]) == Array(repeating: false, count: 8))
    }

    @Test func quietAudioBecomesAPauseAfterSixtyMilliseconds() {
        let s = Self.speech()
        let q = Self.quiet()
        // Three quiet blocks (60 ms) first, then the pause; speech ends it, and the next one starts from nothing.
        #expect(
            Self.pauses([s, q, q, q, q, q, s, q, q, q, q]) == [
                false, false, false, false, true, true, false,
                false, false, false, true,
            ])
    }

    @Test func aQuietStartIsAPauseOnlyAfterItsFirstSixtyMilliseconds() {
        let q = Self.quiet()
        #expect(Self.pauses([q, q, q, q]) == [false, false, false, true])
    }
}
