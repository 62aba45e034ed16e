// espeak-ng in process: speech comes out at the asked rate, the cache returns the same samples, and
// concurrent callers are serialized rather than crashing the non-thread-safe engine.
import Testing

@testable import PolyConversation

@Suite struct SpeechSynthesizerTests {
    @Test func synthesizesSpeechAtTheCallRate() throws {
        let samples = try SpeechSynthesizer.shared.synthesize("Hello, I would like to book a table.", voice: "en-us")
        let seconds = Double(samples.count) / 48_000
        #expect(seconds > 1 && seconds < 5, "\(seconds) s")
        let peak = samples.map { abs(Int($0)) }.max() ?? 0
        #expect(peak > 3000)
        let at16k = try SpeechSynthesizer.shared.synthesize(
            "Hello, I would like to book a table.", voice: "en-us", sampleRate: 16_000)
        #expect(abs(at16k.count * 3 - samples.count) <= 3)
    }

    @Test func unknownVoiceIsAnError() {
        #expect(throws: SpeechError.self) { try SpeechSynthesizer.shared.synthesize("hi", voice: "xx-nonexistent") }
    }

    @Test func concurrentSynthesisIsSerializedAndCached() async throws {
        let texts = (0..<6).map { "Number \($0) please." }
        let lengths = try await withThrowingTaskGroup(of: (String, Int).self) { group in
            for text in texts + texts {
                group.addTask { (text, try SpeechSynthesizer.shared.synthesize(text, voice: "en-us").count) }
            }
            var seen: [String: Set<Int>] = [:]
            for try await (text, count) in group { seen[text, default: []].insert(count) }
            return seen
        }
        #expect(lengths.count == 6)
        #expect(lengths.values.allSatisfy { $0.count == 1 && $0.first! > 4800 })
    }
}
