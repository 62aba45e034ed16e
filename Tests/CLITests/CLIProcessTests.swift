// Runs the built `polyvoice` binary as a user would and checks output and exit codes.
import Foundation
import Testing

/// The `polyvoice` binary next to this test bundle in `.build/<config>/`.
func polyvoiceBinary() -> URL {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("polyvoice").path),
        directory.path != "/"
    {
        directory.deleteLastPathComponent()
    }
    return directory.appendingPathComponent("polyvoice")
}

struct ProcessResult {
    let status: Int32
    let stdout: String
    let stderr: String
    /// Standard output as bytes, for commands that write audio there (`--output -`).
    var stdoutData = Data()
}

/// Runs `polyvoice` to completion. The blocking wait happens on a Dispatch thread, not on the
/// test's cooperative pool, so long runs do not starve concurrently running async tests.
/// `standardInput` is written to the child's stdin (then closed); `directory` is its working directory.
func runPolyvoice(
    _ arguments: [String], environment: [String: String]? = nil, standardInput: Data? = nil,
    directory: URL? = nil
) async throws -> ProcessResult {
    try await runBuiltBinary(
        "polyvoice", arguments, environment: environment, standardInput: standardInput, directory: directory)
}

/// Runs a binary built next to `polyvoice` (the CLI or a sample) to completion, off the cooperative pool.
func runBuiltBinary(
    _ name: String, _ arguments: [String], environment: [String: String]? = nil, standardInput: Data? = nil,
    directory: URL? = nil
) async throws -> ProcessResult {
    let process = Process()
    process.executableURL = polyvoiceBinary().deletingLastPathComponent().appendingPathComponent(name)
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let directory { process.currentDirectoryURL = directory }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let input = standardInput.map { _ in Pipe() }
    if let input { process.standardInput = input }
    try process.run()
    if let input, let standardInput {
        // On a thread of its own: a child that reads slowly must not block the test's pool.
        // A child that exits before reading everything must fail its test, not kill the runner with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        Thread {
            try? input.fileHandleForWriting.write(contentsOf: standardInput)
            try? input.fileHandleForWriting.close()
        }.start()
    }
    return await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            // Drain both pipes at once so a child that fills one cannot deadlock on the other.
            let errors = PipeDrain(err)
            let outData = out.fileHandleForReading.readDataToEndOfFile()
            let errData = errors.wait()
            process.waitUntilExit()
            continuation.resume(
                returning: ProcessResult(
                    status: process.terminationStatus,
                    stdout: String(decoding: outData, as: UTF8.self),
                    stderr: String(decoding: errData, as: UTF8.self), stdoutData: outData))
        }
    }
}

/// Reads a pipe to its end on a thread of its own.
private final class PipeDrain: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var data = Data()  // written once by the reader before `done` is signalled

    init(_ pipe: Pipe) {
        Thread { [self] in
            data = pipe.fileHandleForReading.readDataToEndOfFile()
            done.signal()
        }.start()
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}

@Suite struct CLIProcessTests {
    @Test func versionPrintsAndExitsZero() async throws {
        let result = try await runPolyvoice(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("polyvoice "))
    }

    @Test func helpListsUsage() async throws {
        let result = try await runPolyvoice(["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Usage: polyvoice <command>"))
    }

    @Test func unknownCommandIsUsageError() async throws {
        let result = try await runPolyvoice(["frobnicate"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown command 'frobnicate'"))
        #expect(result.stdout.isEmpty)
    }

    @Test func noArgumentsIsUsageError() async throws {
        let result = try await runPolyvoice([])
        #expect(result.status == 2)
    }
}
