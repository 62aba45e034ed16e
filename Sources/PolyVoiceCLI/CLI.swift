// Subcommand dispatch, top-level help and exit codes.
import PolyCore

/// Documented exit codes of `polyvoice`.
enum ExitCode {
    static let ok: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 2
    static let auth: Int32 = 3
    static let network: Int32 = 4
    static let media: Int32 = 5
}

/// A subcommand: its name, one-line summary, full help, and body.
struct Subcommand: Sendable {
    let name: String
    let summary: String
    let help: String
    let run: @Sendable ([String]) throws -> Int32
}

enum CLI {
    /// Every subcommand; each lives in its own file under Commands/.
    static let subcommands: [Subcommand] = [
        .bridge,
        .call,
        .codec,
        .demo,
        .devices,
        .doctor,
        .impair,
        .jitterSim,
        .loopback,
        .test,
    ]

    static var topHelp: String {
        var text = """
            polyvoice \(Version.number) — voice calls from Linux to AI voice agents

            Usage: polyvoice <command> [options]
                   polyvoice <command> --help

            Commands:

            """
        let width = (subcommands.map(\.name.count).max() ?? 0) + 2
        for command in subcommands {
            text += "  " + command.name.padded(to: width) + command.summary + "\n"
        }
        text += """

            Options:
              -h, --help     Show this help (polyvoice help COMMAND: a command's help)
              --version      Print the version, the commit and the linked library versions

            Files:
              /etc/polyvoice/config          Defaults for every user: key = value lines (bridge,
                                             environment, token-file, input, output)
              ~/.config/polyvoice/config     The same for one user ($XDG_CONFIG_HOME/polyvoice/config);
                                             it wins over /etc, and command-line flags win over both
              /etc/polyvoice/bridge.conf     Settings of the polyvoice-bridge service

            Exit codes: 0 ended normally, 1 other failure, 2 usage, 3 auth, 4 network/timeout, 5 media/device,
            6 an expectation of `polyvoice test` failed.
            """
        return text
    }

    static func run(_ arguments: [String]) -> Int32 {
        guard let first = arguments.first else {
            printError(topHelp)
            return ExitCode.usage
        }
        switch first {
        case "-h", "--help":
            print(topHelp)
            return ExitCode.ok
        case "help":
            return HelpCommand.run(Array(arguments.dropFirst()))
        case "--version", "version":
            print(Version.report)
            return ExitCode.ok
        default:
            break
        }
        guard let command = subcommands.first(where: { $0.name == first }) else {
            printError("polyvoice: unknown command '\(first)'\nRun 'polyvoice --help' for the list of commands.")
            return ExitCode.usage
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            print(command.help)
            return ExitCode.ok
        }
        do {
            return try command.run(rest)
        } catch let error as UsageError {
            printError("polyvoice \(command.name): \(error.message)\nRun 'polyvoice \(command.name) --help' for usage.")
            return ExitCode.usage
        } catch {
            printError("polyvoice \(command.name): \(error)")
            return ExitCode.failure
        }
    }
}

/// Printed to stderr with a pointer to `--help`; exit code 2.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

func printError(_ text: String) {
    StandardStream.error.write(text + "\n")
}
