// The habits people bring to --input/--output: a path is a file (or the null sink), never a device name,
// and "-" is a WAV stream on standard input or output.
import Foundation
import Testing

@Suite("audio endpoints: paths, /dev/null and -", .serialized)
struct AudioEndpointHabitsTests {
    /// The 4-byte little-endian field at `offset` of a WAV header.
    static func field(_ data: Data, at offset: Int) -> UInt32 {
        data.subdata(in: offset..<offset + 4).withUnsafeBytes {
            UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))
        }
    }

    @Test func loopbackWritesToDevNullInsteadOfLookingForADevice() async throws {
        let directory = try CodecCommandTests.workspace()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.wav").path
        let result = try await runPolyvoice(["loopback", "--input", input, "--output", "/dev/null"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("mode: virtual-time"))
        #expect(!result.stderr.contains("device"), "\(result.stderr)")
    }

    @Test func loopbackStreamsWAVThroughStandardOutputAndInput() async throws {
        let directory = try CodecCommandTests.workspace()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.wav").path
        let streamed = try await runPolyvoice(["loopback", "--input", input, "--output", "-"])
        #expect(streamed.status == 0, "\(streamed.stderr)")
        #expect(streamed.stdout.hasPrefix("RIFF"), "stdout must carry only the WAV")
        #expect(streamed.stderr.contains("mode: virtual-time"), "the statistics go to stderr")
        // Virtual time knows the whole length before writing, so even a pipe gets the real size.
        #expect(Self.field(streamed.stdoutData, at: 40) == UInt32(streamed.stdoutData.count - 44))

        // "-" as input reads a WAV from stdin; the file written from it holds the same audio length.
        let original = try Data(contentsOf: URL(fileURLWithPath: input))
        let output = directory.appendingPathComponent("from-stdin.wav")
        let fromStdin = try await runPolyvoice(
            ["loopback", "--input", "-", "--output", output.path], standardInput: original)
        #expect(fromStdin.status == 0, "\(fromStdin.stderr)")
        let written = try Data(contentsOf: output)
        #expect(written.count > 44 + 48_000 / 2, "at least half a second of 48 kHz audio")
        #expect(Self.field(written, at: 40) == UInt32(written.count - 44), "a file's header has its real size")
    }

    @Test func callOutputToDevNullAFileWithoutWavNameAndStdout() async throws {
        let directory = try CodecCommandTests.workspace()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bridge = try BridgeProcess()
        defer { bridge.stop() }
        let environment = ["POLYVOICE_WEBRTC_TOKEN": BridgeProcess.token, "HOME": directory.path]
        let call = ["call", "--environment", "local:\(bridge.port)", "--input", "in.wav", "--duration", "1"]

        let devNull = try await runPolyvoice(
            call + ["--output", "/dev/null"], environment: environment, directory: directory)
        #expect(devNull.status == 0, "\(devNull.stdout) \(devNull.stderr)")
        #expect(!devNull.stdout.contains("no audio output device"))

        // "reply" (no .wav) exists after the first call, so the second must write the file, not look for a device.
        #expect(
            FileManager.default.createFile(atPath: directory.appendingPathComponent("reply").path, contents: Data()))
        let named = try await runPolyvoice(
            call + ["--output", "reply"], environment: environment, directory: directory)
        #expect(named.status == 0, "\(named.stdout) \(named.stderr)")
        let reply = try Data(contentsOf: directory.appendingPathComponent("reply"))
        #expect(reply.count > 44 && String(decoding: reply.prefix(4), as: UTF8.self) == "RIFF")

        let stdout = try await runPolyvoice(call + ["--output", "-"], environment: environment, directory: directory)
        #expect(stdout.status == 0, "\(stdout.stderr)")
        #expect(stdout.stdout.hasPrefix("RIFF"), "only the WAV on stdout")
        #expect(stdout.stderr.contains("ended"), "the summary goes to stderr: \(stdout.stderr)")
        // A pipe cannot be rewound: the header says "unknown length", and `--input -` reads such a stream.
        #expect(Self.field(stdout.stdoutData, at: 40) == 0xFFFF_FFFF)
        #expect(stdout.stdoutData.count > 44 + 48_000 * 2 / 2, "at least half a second of the echo")
        let again = try await runPolyvoice(
            ["loopback", "--input", "-", "--output", directory.appendingPathComponent("again.wav").path],
            standardInput: stdout.stdoutData)
        #expect(again.status == 0, "\(again.stderr)")
    }
}
