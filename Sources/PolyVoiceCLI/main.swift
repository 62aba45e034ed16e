// Entry point of the `polyvoice` command-line tool.
import Glibc

let exitCode = CLI.run(Array(CommandLine.arguments.dropFirst()))
exit(exitCode)
