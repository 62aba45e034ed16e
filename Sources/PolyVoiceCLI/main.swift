// Entry point of the `polyvoice` command-line tool.
import Foundation

let exitCode = CLI.run(Array(CommandLine.arguments.dropFirst()))
exit(exitCode)
