// One line of `polyvoice doctor`: what was checked, how it went, and what to do about it.
import FoundationEssentials
import Glibc
import PolyConversation
import PolyCore

struct DoctorCheck {
    enum Status: String {
        /// Works.
        case pass
        /// Optional, or not needed for every use (no audio devices, no quality tools): reported, not failed.
        case warn
        /// Required and broken: doctor exits 1.
        case fail

        var mark: String {
            switch self {
            case .pass: "✓"
            case .warn: "!"
            case .fail: "✗"
            }
        }
    }

    let group: String
    let name: String
    let status: Status
    /// What was found (a version, a count, a measured figure) or what went wrong.
    let detail: String
    /// What to do about a warning or failure.
    let fix: String?

    static func pass(_ group: String, _ name: String, _ detail: String) -> DoctorCheck {
        DoctorCheck(group: group, name: name, status: .pass, detail: detail, fix: nil)
    }

    /// A failure of a required check, or a warning for an optional one.
    static func problem(_ group: String, _ name: String, required: Bool, _ detail: String, fix: String)
        -> DoctorCheck
    {
        DoctorCheck(group: group, name: name, status: required ? .fail : .warn, detail: detail, fix: fix)
    }

    var json: JSONValue {
        .object(
            [
                ("group", .string(group)), ("name", .string(name)), ("status", .string(status.rawValue)),
                ("detail", .string(detail)),
            ] + (fix.map { [("fix", .string($0))] } ?? []))
    }
}

/// Runs a helper program with a time limit; nil if it could not start, timed out or failed.
enum DoctorShell {
    static func run(_ executable: String, _ arguments: [String], timeout: Double = 5) -> String? {
        guard let process = try? ChildProcess(executable, arguments, standardOutput: .capture, standardError: .discard)
        else { return nil }
        guard let output = process.collectOutput(within: timeout)?.output,
            process.waitForExit(within: timeout) == 0
        else {
            process.send(SIGKILL)  // a helper that hangs past the time limit
            process.waitForExit()
            return nil
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The first executable named `name` on PATH (or the usual system directories).
    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return (path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin"])
            .map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
