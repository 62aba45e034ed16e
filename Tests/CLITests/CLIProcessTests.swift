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
}

func runPolyvoice(_ arguments: [String], environment: [String: String]? = nil) throws -> ProcessResult {
    let process = Process()
    process.executableURL = polyvoiceBinary()
    process.arguments = arguments
    if let environment { process.environment = environment }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(
        status: process.terminationStatus,
        stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self))
}

@Suite struct CLIProcessTests {
    @Test func versionPrintsAndExitsZero() throws {
        let result = try runPolyvoice(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("polyvoice "))
    }

    @Test func helpListsUsage() throws {
        let result = try runPolyvoice(["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Usage: polyvoice <command>"))
    }

    @Test func unknownCommandIsUsageError() throws {
        let result = try runPolyvoice(["frobnicate"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown command 'frobnicate'"))
        #expect(result.stdout.isEmpty)
    }

    @Test func noArgumentsIsUsageError() throws {
        let result = try runPolyvoice([])
        #expect(result.status == 2)
    }
}
