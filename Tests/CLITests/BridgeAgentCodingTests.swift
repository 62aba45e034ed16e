// `polyvoice bridge --agent-bitrate/--agent-bandwidth/--agent-loss-hint`: what the caller hears is coded as asked.
import Foundation
import PolyAudio
import PolyVoiceTesting
import Testing

@Suite("polyvoice bridge agent coding", .serialized)
struct BridgeAgentCodingTests {
    /// 2 s of a 1 kHz and a 12 kHz tone, 48 kHz mono: the 12 kHz one only survives coding wider than wideband.
    private func twoTones() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pv-two-tones-\(UUID()).wav")
        let samples = (0..<96_000).map { n -> Int16 in
            let t = Double(n) / 48_000
            return Int16(6000 * sin(2 * .pi * 1000 * t) + 6000 * sin(2 * .pi * 12_000 * t))
        }
        try WAVFile(sampleRate: 48_000, layout: .mono, samples: .int16(samples)).write(to: url)
        return url
    }

    /// Power of `frequency` in `samples`, normalised per sample.
    private func power(_ samples: ArraySlice<Int16>, at frequency: Double) -> Double {
        ToneAnalysis.power(samples, at: frequency, sampleRate: 48_000) / Double(samples.count * samples.count)
    }

    /// The 12 kHz tone's power relative to the 1 kHz one's in what a call heard from a play agent.
    private func highToneRatio(bridgeArguments: [String]) async throws -> Double {
        let input = try twoTones()
        let output = input.deletingPathExtension().appendingPathExtension("heard.wav")
        defer {
            try? FileManager.default.removeItem(at: input)
            try? FileManager.default.removeItem(at: output)
        }
        let bridge = try BridgeProcess(agent: "play:\(input.path)", extraArguments: bridgeArguments)
        defer { bridge.stop() }
        let bridgeURL = "http://127.0.0.1:\(bridge.port)/"
        let result = try await runPolyvoice(
            ["call", "--bridge", bridgeURL, "--input", "null", "--output", output.path, "--duration", "2.5"],
            environment: ["POLYVOICE_WEBRTC_TOKEN": BridgeProcess.token])
        #expect(result.status == 0, "\(result.stderr)")
        let heard = try WAVFile.readPipelineSamples(from: output)
        // The middle second: the tones are playing whatever the call's set-up took.
        let middle = heard[min(heard.count, 48_000)..<min(heard.count, 96_000)]
        try #require(middle.count == 48_000)
        let low = power(middle, at: 1000)
        try #require(low > 1e5, "the 1 kHz tone was not heard")
        return power(middle, at: 12_000) / low
    }

    @Test func theBandReachesTheCaller() async throws {
        let wideband = try await highToneRatio(bridgeArguments: [])
        let fullband = try await highToneRatio(
            bridgeArguments: ["--agent-bandwidth", "fullband", "--agent-bitrate", "96000"])
        #expect(wideband < 0.01, "wideband coding let 12 kHz through: \(wideband)")
        #expect(fullband > 0.3, "fullband coding lost 12 kHz: \(fullband)")
    }

    @Test func badValuesAreUsageErrors() async throws {
        for arguments in [
            ["--agent-bandwidth", "20k"], ["--agent-bitrate", "600000"], ["--agent-bitrate", "x"],
            ["--agent-loss-hint", "101"], ["--agent-loss-hint", "five"],
        ] {
            let result = try await runPolyvoice(["bridge", "--allow-any-token", "--port", "0"] + arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains(arguments[0]), "\(result.stderr)")
        }
    }
}
