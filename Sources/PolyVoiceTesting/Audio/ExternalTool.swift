// Running the command-line tools tests rely on (espeak-ng, sox, the venv's Python) and finding the repository.
import FoundationEssentials
import Glibc
import PolyCore

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
        let command = ([executable] + arguments).joined(separator: " ")
        let process: ChildProcess
        do {
            process = try ChildProcess(executable, arguments, standardOutput: .capture, standardError: .capture)
        } catch {
            throw ExternalToolError(command: command, status: -1, standardError: error.description)
        }
        let (output, errors) = process.collectOutput()
        let status = process.waitForExit()
        guard status == 0 else {
            throw ExternalToolError(
                command: command, status: status, standardError: String(decoding: errors, as: UTF8.self))
        }
        return String(decoding: output, as: UTF8.self)
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
