// `polyvoice codec` run as a process: output file, printed figures, exit codes.
import Foundation
import Testing

@Suite struct CodecCommandTests {
    /// A temporary directory holding an espeak-ng recording `in.wav` (22.05 kHz mono).
    static func workspace() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pv-codec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let espeak = Process()
        espeak.executableURL = URL(fileURLWithPath: "/usr/bin/espeak-ng")
        espeak.arguments = ["-w", directory.appendingPathComponent("in.wav").path, "Testing the codec command."]
        try espeak.run()
        espeak.waitUntilExit()
        try #require(espeak.terminationStatus == 0)
        return directory
    }

    /// The `name: value` lines printed by the command.
    static func figures(_ stdout: String) -> [String: Double] {
        var result: [String: Double] = [:]
        for line in stdout.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, let value = Double(parts[1].trimmingCharacters(in: .whitespaces)) {
                result[String(parts[0])] = value
            }
        }
        return result
    }

    @Test func codesWithLossAndFEC() async throws {
        let directory = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.wav").path
        let output = directory.appendingPathComponent("out.wav").path
        let result = try await runPolyvoice(["codec", input, output, "--fec", "--loss", "20", "--seed", "7"])
        #expect(result.status == 0, "\(result.stderr)")
        let figures = Self.figures(result.stdout)
        let packets = try #require(figures["packets"])
        let lost = try #require(figures["lost"])
        #expect(packets > 50)
        #expect(lost > 0 && lost < packets / 2)
        #expect(figures["recovered-by-FEC"]! + figures["concealed"]! == lost)
        #expect(figures["recovered-by-FEC"]! > 0)
        #expect((10...40).contains(figures["kbps"]!))
        #expect(FileManager.default.fileExists(atPath: output))

        // Same seed, same losses; another seed, other losses; no loss, nothing lost.
        let again = try await runPolyvoice(["codec", input, output, "--fec", "--loss", "20", "--seed", "7"])
        #expect(again.stdout == result.stdout)
        let other = try await runPolyvoice(["codec", input, output, "--fec", "--loss", "20", "--seed", "8"])
        #expect(other.stdout != result.stdout)
        let clean = try await runPolyvoice(["codec", input, output, "--bitrate", "16000", "--complexity", "5"])
        #expect(Self.figures(clean.stdout)["lost"] == 0)
        #expect(Self.figures(clean.stdout)["kbps"]! < figures["kbps"]!)
    }

    @Test func wrongArgumentsAreUsageErrors() async throws {
        let cases: [[String]] = [
            ["codec"], ["codec", "a.wav"], ["codec", "a.wav", "b.wav", "c.wav"],
            ["codec", "a.wav", "b.wav", "--loss", "150"], ["codec", "a.wav", "b.wav", "--bitrate", "fast"],
            ["codec", "a.wav", "b.wav", "--complexity", "11"], ["codec", "a.wav", "b.wav", "--fec=yes"],
            ["codec", "a.wav", "b.wav", "--frobnicate"],
        ]
        for arguments in cases {
            let result = try await runPolyvoice(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains("polyvoice codec --help"), "\(arguments)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test func missingOrMalformedFilesFailClearly() async throws {
        let directory = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.wav").path
        let missing = directory.appendingPathComponent("missing.wav").path
        let result = try await runPolyvoice(["codec", missing, output])
        #expect(result.status == 1)
        #expect(result.stderr.contains(missing))

        let bogus = directory.appendingPathComponent("bogus.wav")
        try Data("definitely not a wave file".utf8).write(to: bogus)
        let malformed = try await runPolyvoice(["codec", bogus.path, output])
        #expect(malformed.status == 1)
        #expect(malformed.stderr.contains("\(bogus.path): not a WAV file"))
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func helpDescribesTheOptions() async throws {
        let result = try await runPolyvoice(["codec", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("--fec"))
        #expect(try await runPolyvoice(["--help"]).stdout.contains("codec"))
    }
}
