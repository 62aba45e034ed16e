// Reproducible speech for tests and demos: espeak-ng text-to-speech, converted by sox, cached on disk.
import FoundationEssentials
import Glibc

/// Generates (once) and caches speech WAV files: 16-bit mono PCM at the requested rate.
public struct SpeechFixtures: Sendable {
    /// Two distinct voices, so tests can tell the two directions of a call apart.
    public enum Voice: String, Sendable, CaseIterable {
        /// espeak-ng's American English voice.
        case male = "en-us"
        /// The same language with espeak-ng's female variant 3.
        case female = "en-us+f3"
    }

    /// The default text: a few phonetically varied sentences (about five seconds of speech).
    public static let sentences =
        "The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. "
        + "It is easy to tell the depth of a well. These days a chicken leg is a rare dish."

    public let cacheDirectory: URL

    /// Uses `cacheDirectory`, or `<repository>/.build/speech-fixtures` when nil.
    public init(cacheDirectory: URL? = nil) throws {
        self.cacheDirectory =
            try cacheDirectory ?? ExternalTool.repositoryRoot().appendingPathComponent(".build/speech-fixtures")
    }

    /// The WAV file of `text` spoken by `voice` at `sampleRate`, generated on first use.
    public func speech(_ voice: Voice, text: String = SpeechFixtures.sentences, sampleRate: Int = 48_000) throws
        -> URL
    {
        let name = "\(voice == .male ? "male" : "female")-\(sampleRate)-\(Self.fingerprint(text)).wav"
        let file = cacheDirectory.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: file.path) { return file }
        try FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        // Build in temporary files and rename, so a concurrent or interrupted run never leaves half a file.
        let unique = UUID().uuidString
        let raw = cacheDirectory.appendingPathComponent("\(unique).espeak.wav")
        let converted = cacheDirectory.appendingPathComponent("\(unique).wav")
        defer {
            try? FileManager.default.removeItem(at: raw)
            try? FileManager.default.removeItem(at: converted)
        }
        try ExternalTool.run("espeak-ng", ["-v", voice.rawValue, "-w", raw.path, text])
        // -D: no dither, so the conversion is bit-for-bit reproducible.
        try ExternalTool.run(
            "sox",
            ["-D", raw.path, "-r", "\(sampleRate)", "-c", "1", "-b", "16", "-e", "signed-integer", converted.path])
        if rename(converted.path, file.path) != 0 {
            throw ExternalToolError(command: "rename \(converted.path)", status: errno, standardError: "")
        }
        return file
    }

    /// FNV-1a of the text: a stable file name part (Swift's hashValue changes from run to run).
    private static func fingerprint(_ text: String) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3
        }
        return String(hash, radix: 16)
    }
}
