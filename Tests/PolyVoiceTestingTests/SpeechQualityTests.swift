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
    /// `--utterances` scores each utterance on its own, aligned on its own: a delay step in a pause costs
    /// nothing, and noise over one utterance lowers that one only. The reference is built here, so where its
    /// utterances are is known: A at 1.0-2.5 s, B at 3.0-4.5 s, silence around them.
    @Test func utterancesAreScoredEachOnItsOwn() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixtures = try SpeechFixtures(cacheDirectory: directory)
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        try ExternalTool.run("sox", [try fixtures.speech(.male).path, path("a.wav"), "trim", "0", "1.5"])
        try ExternalTool.run("sox", [try fixtures.speech(.female).path, path("b.wav"), "trim", "0", "1.5"])
        try ExternalTool.run(
            "sox", ["-D", "-n", "-r", "48000", "-c", "1", "-b", "16", path("gap.wav"), "trim", "0", "0.5"])
        try ExternalTool.run(
            "sox", ["-D", "-n", "-r", "48000", "-c", "1", "-b", "16", path("lead.wav"), "trim", "0", "1"])
        try ExternalTool.run(
            "sox",
            ["-D", path("lead.wav"), path("a.wav"), path("gap.wav"), path("b.wav"), path("gap.wav"), path("ref.wav")])
        // 70 ms late, 60 ms more from the middle of the pause (2.75 s); noise over B only (3.13-4.63 s there).
        try ExternalTool.run("sox", ["-D", path("ref.wav"), path("stepped.wav"), "pad", "0.07@0", "0.06@2.75"])
        try ExternalTool.run(
            "sox",
            [
                "-D", "-n", "-r", "48000", "-c", "1", "-b", "16", path("noise.wav"), "synth", "1.5", "whitenoise",
                "vol", "0.1", "pad", "3.13", "0.5",
            ])
        try ExternalTool.run("sox", ["-D", "-m", path("stepped.wav"), path("noise.wav"), path("degraded.wav")])

        let root = try ExternalTool.repositoryRoot()
        let output = try ExternalTool.run(
            root.appendingPathComponent(".venv/bin/python").path,
            [
                root.appendingPathComponent("scripts/quality.py").path, path("ref.wav"), path("degraded.wav"), "--json",
                "--utterances",
            ])
        struct Scores: Decodable {
            let utterances_s: [[Double]]
            let pesq_wb_utterances: [Double?]
        }
        let scores = try JSONDecoder().decode(Scores.self, from: Data(output.utf8))
        let inA = scores.utterances_s.indices.filter {
            scores.utterances_s[$0][0] >= 0.95 && scores.utterances_s[$0][1] <= 2.55
        }
        let inB = scores.utterances_s.indices.filter {
            scores.utterances_s[$0][0] >= 2.95 && scores.utterances_s[$0][1] <= 4.55
        }
        #expect(!inA.isEmpty && !inB.isEmpty)
        #expect(inA.count + inB.count == scores.utterances_s.count)  // nothing found in the silence
        for index in inA { #expect((scores.pesq_wb_utterances[index] ?? 0) > 4.3) }
        for index in inB { #expect((scores.pesq_wb_utterances[index] ?? 5) < 3) }
    }
}
