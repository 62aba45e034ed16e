// Entry point of the `polyvoice` command-line tool.
import Glibc
import PolyNet

// Before anything uses OpenSSL: `exit` must not free its state under a thread still closing a TLS session.
OpenSSLExitCleanUp.disable()
let exitCode = CLI.run(Array(CommandLine.arguments.dropFirst()))
exit(exitCode)
