// `polyvoice call` as a user runs it: argument errors, an unreachable bridge, a wrong token, and a real
// call against `polyvoice bridge` with file audio.
import Foundation
import Testing

/// A `polyvoice bridge` child process on a free port; `stop()` sends SIGTERM.
final class BridgeProcess {
    let process = Process()
    let port: Int
    static let token = "cli-test-token-7d3e91"

    /// On `port` (0: a free one).
    init(agent: String = "echo", extraArguments: [String] = [], port: Int = 0) throws {
        process.executableURL = polyvoiceBinary()
        process.arguments = ["bridge", "--port", "\(port)", "--agent", agent] + extraArguments
        process.environment = ["POLYVOICE_BRIDGE_TOKEN": Self.token]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        // "bridge: listening on http://127.0.0.1:PORT/ (agent …)"
        let text = firstLine(of: out)
        guard let range = text.range(of: "127.0.0.1:"),
            let port = Int(text[range.upperBound...].prefix { $0.isNumber })
        else {
            process.terminate()
            throw BridgeStartError(output: text)
        }
        self.port = port
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

struct BridgeStartError: Error { let output: String }

@Suite("polyvoice call", .serialized)
struct CallCommandTests {
    @Test func missingBridgeIsAUsageError() async throws {
        let result = try await runPolyvoice(
            ["call", "--input", "null"], environment: ["POLYVOICE_WEBRTC_TOKEN": "abc12345"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--bridge"))
    }

    @Test func usageErrorsExitTwo() async throws {
        let env = ["POLYVOICE_WEBRTC_TOKEN": "abc12345"]
        let cases: [[String]] = [
            ["call", "--environment", "mars"],
            ["call", "--environment", "local:99999"],
            ["call", "--bridge", "ftp://x/", "--input", "null"],
            ["call", "--bridge", "http://127.0.0.1:1/", "--environment", "us"],
            ["call", "--environment", "us", "--duration", "-3"],
            ["call", "--environment", "us", "--token", "abc"],
            ["call", "--environment", "us", "extra"],
            ["call", "--environment", "us", "--input", "null", "--loop-input"],
        ]
        for arguments in cases {
            let result = try await runPolyvoice(arguments, environment: env)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("--help"), "\(arguments)")
        }
        let loopDevice = try await runPolyvoice(
            ["call", "--environment", "us", "--input", "default", "--loop-input"], environment: env)
        #expect(loopDevice.stderr.contains("--loop-input needs a WAV file"), "\(loopDevice.stderr)")
        let noToken = try await runPolyvoice(["call", "--environment", "us"], environment: [:])
        #expect(noToken.status == 2)
        #expect(noToken.stderr.contains("POLYVOICE_WEBRTC_TOKEN"))
    }

    @Test func unreachableBridgeExitsFour() async throws {
        let result = try await runPolyvoice(
            ["call", "--environment", "local:1", "--input", "null", "--output", "null", "--json"],
            environment: ["POLYVOICE_WEBRTC_TOKEN": "abc12345"])
        #expect(result.status == 4)
        #expect(result.stdout.contains(#""type":"summary""#))
        #expect(result.stdout.contains(#""exitCode":4"#))
    }

    @Test func wrongTokenExitsThreeAndNeverPrintsIt() async throws {
        let bridge = try BridgeProcess()
        defer { bridge.stop() }
        let secret = "wrong-token-5be0c2f1"
        let result = try await runPolyvoice(
            ["call", "--environment", "local:\(bridge.port)", "--input", "null", "--output", "null", "--verbose"],
            environment: ["POLYVOICE_WEBRTC_TOKEN": secret])
        #expect(result.status == 3)
        #expect(result.stdout.contains("rejected"))
        #expect(!result.stdout.contains(secret))
        #expect(!result.stderr.contains(secret))
        #expect(result.stderr.contains("debug"))  // --verbose logged
    }

    @Test func missingInputFileExitsFive() async throws {
        let bridge = try BridgeProcess()
        defer { bridge.stop() }
        let result = try await runPolyvoice(
            ["call", "--environment", "local:\(bridge.port)", "--input", "/nonexistent/in.wav", "--output", "null"],
            environment: ["POLYVOICE_WEBRTC_TOKEN": BridgeProcess.token])
        #expect(result.status == 5)
        #expect(result.stdout.contains("in.wav"))
    }
}

/// What a child process wrote up to its first newline (all of it if it closed the pipe first).
func firstLine(of pipe: Pipe) -> String {
    var text = ""
    let handle = pipe.fileHandleForReading
    while !text.contains("\n") {
        let data = handle.availableData
        guard !data.isEmpty else { break }
        text += String(decoding: data, as: UTF8.self)
    }
    return text
}
