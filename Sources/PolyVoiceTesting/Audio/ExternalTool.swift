// Running the command-line tools tests rely on (espeak-ng, sox, the venv's Python) and finding the repository.
import Foundation

/// A tool exited with a failure status or could not be started.
public struct ExternalToolError: Error, CustomStringConvertible {
    public let command: String
    public let status: Int32
    public let standardError: String

    public var description: String { "\(command) failed with status \(status): \(standardError)" }
}

enum ExternalTool {
    /// Runs `executable` (a path, or a name looked up in PATH) and returns its standard output.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        if executable.contains("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let command = ([executable] + arguments).joined(separator: " ")
        do {
            try process.run()
        } catch {
            throw ExternalToolError(command: command, status: -1, standardError: "\(error)")
        }
        // Read stderr on another thread so neither pipe can fill up and stall the tool.
        let errorText = ErrorCollector()
        let reader = Thread { errorText.set(errors.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let stderr = errorText.wait()
        guard process.terminationStatus == 0 else {
            throw ExternalToolError(command: command, status: process.terminationStatus, standardError: stderr)
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The directory holding Package.swift, walking up from `start`.
    static func repositoryRoot(from start: URL) -> URL? {
        var directory = start.standardizedFileURL
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
                return directory
            }
            directory.deleteLastPathComponent()
        }
        return nil
    }

    /// The repository root from the current directory, else from this source file's location.
    static func repositoryRoot() throws -> URL {
        let candidates = [
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent(),
        ]
        for candidate in candidates {
            if let root = repositoryRoot(from: candidate) { return root }
        }
        throw ExternalToolError(command: "find Package.swift", status: -1, standardError: "no repository root found")
    }
}

/// Hands the standard error text from the reader thread to the waiting one.
private final class ErrorCollector: @unchecked Sendable {
    // Written once by the reader thread before `done` is signalled; read only after the wait.
    private var text = ""
    private let done = DispatchSemaphore(value: 0)

    func set(_ data: Data) {
        text = String(decoding: data, as: UTF8.self)
        done.signal()
    }

    func wait() -> String {
        done.wait()
        return text
    }
}
