// The PCM every run codes: espeak-ng speech (48 kHz mono), or a synthetic voice if espeak-ng is absent.
import Foundation
import PolyAudio

enum BenchInput {
    static let text = """
        PolyVoice places live voice calls from Linux to AI voice agents through a voice bridge. \
        Opus codes the microphone in twenty millisecond frames, with forward error correction when \
        the network loses packets, and the far end conceals what is still missing.
        """

    /// At least `seconds` of speech at 48 kHz mono, whole 20 ms frames.
    static func speech(seconds: Double) -> (pcm: [Int16], source: String) {
        var pcm = (try? espeak()) ?? []
        let source = pcm.isEmpty ? "synthetic voice" : "espeak-ng speech"
        if pcm.isEmpty { pcm = synthetic(seconds: 5) }
        let wanted = Int(seconds * 48000) / 960 * 960
        var looped: [Int16] = []
        looped.reserveCapacity(wanted)
        while looped.count < wanted { looped += pcm.prefix(wanted - looped.count) }
        return (looped, source)
    }

    private static func espeak() throws -> [Int16] {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("codecbench-\(getpid()).wav")
        defer { try? FileManager.default.removeItem(at: url) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/espeak-ng")
        process.arguments = ["-w", url.path, text]
        try process.run()
        process.waitUntilExit()
        return try WAVFile.readPipelineSamples(from: url)
    }

    /// A vowel-like buzz with a gliding pitch and syllable-rate loudness changes.
    private static func synthetic(seconds: Double) -> [Int16] {
        var phase = 0.0
        return (0..<Int(seconds * 48000)).map { index in
            let time = Double(index) / 48000
            let pitch = 120 + 30 * sin(2 * .pi * 0.7 * time)
            phase += 2 * .pi * pitch / 48000
            let envelope = 0.5 + 0.5 * sin(2 * .pi * 4 * time)
            let voice = (1...20).reduce(0.0) { $0 + sin(Double($1) * phase) / Double($1) }
            return Int16(clamping: Int(6000 * envelope * voice))
        }
    }
}
