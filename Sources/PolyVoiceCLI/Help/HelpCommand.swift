// `polyvoice help [COMMAND]`, and the generators `make package` uses (not in the top-level help, since
// users read their output through man and their shell): `help --man [COMMAND]` prints a roff page,
// `help --completion bash|zsh` a completion script.
enum HelpCommand {
    static func run(_ arguments: [String]) -> Int32 {
        switch arguments.first {
        case nil, "-h", "--help":
            print(CLI.topHelp)
        case "--man":
            guard arguments.count <= 2 else { return usage("help --man takes at most one command") }
            guard let name = arguments.dropFirst().first else {
                print(ManPage.main(commands: CLI.subcommands), terminator: "")
                return ExitCode.ok
            }
            guard let command = command(name) else { return unknown(name) }
            print(ManPage.page(for: command), terminator: "")
        case "--completion":
            switch arguments.dropFirst().first {
            case "bash": print(CompletionScript.bash(commands: CLI.subcommands), terminator: "")
            case "zsh": print(CompletionScript.zsh(commands: CLI.subcommands), terminator: "")
            default: return usage("help --completion takes bash or zsh")
            }
        case let name?:
            guard let command = command(name) else { return unknown(name) }
            print(command.help)
        }
        return ExitCode.ok
    }

    private static func command(_ name: String) -> Subcommand? { CLI.subcommands.first { $0.name == name } }

    private static func unknown(_ name: String) -> Int32 {
        usage("unknown command '\(name)'\nRun 'polyvoice --help' for the list of commands.")
    }

    private static func usage(_ message: String) -> Int32 {
        printError("polyvoice help: \(message)")
        return ExitCode.usage
    }
}
