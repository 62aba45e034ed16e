import Foundation
import Testing

@testable import PolyVoiceTesting

private func temporaryDirectory() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("polyvoice-speech-\(UUID().uuidString)")
}

@Suite struct SpeechQualityTests {
    @Test func speechFixturesAreReproducible48kMonoAndVoicesDiffer() throws {
        let first = temporaryDirectory()
        let second = temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: first)
            try? FileManager.default.removeItem(at: second)
        }
        let male = try SpeechFixtures(cacheDirectory: first).speech(.male)
        let again = try SpeechFixtures(cacheDirectory: second).speech(.male)
        let female = try SpeechFixtures(cacheDirectory: first).speech(.female)
        #expect(try Data(contentsOf: male) == Data(contentsOf: again))
        #expect(try Data(contentsOf: male) != Data(contentsOf: female))
        for file in [male, female] {
            #expect(
                try ExternalTool.run("soxi", ["-r", file.path]).trimmingCharacters(in: .whitespacesAndNewlines)
                    == "48000")
            #expect(
                try ExternalTool.run("soxi", ["-c", file.path]).trimmingCharacters(in: .whitespacesAndNewlines) == "1")
            let seconds = try #require(
                Double(ExternalTool.run("soxi", ["-D", file.path]).trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(seconds > 4 && seconds < 20)
        }
        // A second request is served from the cache.
        #expect(try SpeechFixtures(cacheDirectory: first).speech(.male) == male)
    }

    @Test func scorerMeasuresDelayAndQuality() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let reference = try SpeechFixtures(cacheDirectory: directory).speech(.female)
        let delayed = directory.appendingPathComponent("delayed.wav")
        let noisy = directory.appendingPathComponent("noisy.wav")
        let noise = directory.appendingPathComponent("noise.wav")
        try ExternalTool.run("sox", ["-D", reference.path, delayed.path, "pad", "0.07", "0"])
        try ExternalTool.run(
            "sox",
            ["-D", "-n", "-r", "48000", "-c", "1", "-b", "16", noise.path, "synth", "30", "whitenoise", "vol", "0.1"])
        try ExternalTool.run("sox", ["-D", "-m", delayed.path, noise.path, noisy.path, "trim", "0", "8"])

        let scorer = try QualityScorer()
        let clean = try scorer.score(reference: reference, degraded: delayed)
        #expect(abs(clean.delayMilliseconds - 70) < 1)
        #expect(clean.pesqWideband > 4.4)
        #expect(clean.stoi > 0.99)

        let degraded = try scorer.score(reference: reference, degraded: noisy)
        #expect(abs(degraded.delayMilliseconds - 70) < 1)
        #expect(degraded.pesqWideband < 2.5)
        #expect(degraded.stoi < clean.stoi)
    }

    /// A delay step mid-recording (as a jitter buffer growing by 180 ms makes) leaves the speech intelligible:
    /// STOI re-aligns per chunk, where one global alignment would score the rest of the file misaligned.
    /// Re-alignment is local (±300 ms), so shuffled speech still scores low.
    @Test func stoiFollowsADelayStepButNotShuffledSpeech() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let reference = try SpeechFixtures(cacheDirectory: directory).speech(.female)
        let stepped = directory.appendingPathComponent("stepped.wav")
        try ExternalTool.run("sox", ["-D", reference.path, stepped.path, "pad", "0.07@0", "0.18@4"])
        let shuffled = directory.appendingPathComponent("shuffled.wav")
        let second = { (from: Int) in directory.appendingPathComponent("second-\(from).wav").path }
        for from in 0..<8 {
            try ExternalTool.run("sox", [reference.path, second(from), "trim", "\(from)", "1"])
        }
        try ExternalTool.run("sox", [5, 2, 7, 0, 3, 6, 1, 4].map(second) + [shuffled.path])

        let scorer = try QualityScorer()
        let step = try scorer.score(reference: reference, degraded: stepped)
        #expect(step.stoi > 0.98)
        #expect(step.stoiGlobalAlignment < 0.8)
        #expect(step.pesqWideband > 3)
        let shuffle = try scorer.score(reference: reference, degraded: shuffled)
        #expect(shuffle.stoi < 0.5)
    }
}
