// `polyvoice doctor`: is this machine ready for a call? Libraries, audio system, tools, media path.
import FoundationEssentials
import Glibc
import PolyConversation

extension Subcommand {
    static let doctor = Subcommand(
        name: "doctor",
        summary: "Check libraries, audio system, tools and the media path; say what to fix",
        help: """
            Usage: polyvoice doctor [--json]
                   polyvoice doctor --network (--bridge URL | --environment ENV) [--token-file F]
                                    [--ice-server URL]... [--ca-file F] [--json]

            Checks, one line each (✓ works, ! warning, ✗ failure, with what to do):
              Libraries       Opus, libsrtp2, OpenSSL, libwebsockets and PortAudio load and start (versions)
              Configuration   the config files looked at (/etc/polyvoice/config, then
                              ~/.config/polyvoice/config) and each setting with the file and line that set it
              Audio system    PortAudio host APIs, devices, default input and output, PulseAudio
                              (PULSE_SERVER / pactl info), ALSA's default pcm
              Optional tools  espeak-ng, PESQ/STOI in the project's Python venv
              Media path      a 1 kHz tone through Opus, 5 % loss and the jitter buffer keeps its frequency;
                              UDP datagrams on 127.0.0.1

            Audio devices and tools are warnings: calls from files, app buffers and bots need neither.

            With --network it checks, from where it runs, the paths a call can take instead: the bridge's REST
            API (one provision, then its DELETE; the token as for `call`), a STUN binding with every STUN server
            the bridge hands out (the server-reflexive address) and a TURN allocation with every TURN server
            (with the call's credentials), plus each --ice-server (TURN credentials as for `call`). A blocked
            STUN or TURN server is a warning with what to open; an unreachable bridge is a failure. TURN is
            tried over UDP, TCP and TLS as each URL says; TLS certificates (the bridge's HTTPS and turns:) are
            checked as a call checks them: the system store, plus --ca-file F (or --turn-ca-file F, its older
            name) or POLYVOICE_CA_FILE.

            Options:
              --json   Print {"ok": BOOL, "checks": [{group, name, status, detail, fix}]} instead

            Exit codes: 0 all required checks pass (warnings allowed), 1 a required check failed, 2 usage.
            """,
        run: runDoctor)
}

private func runDoctor(_ arguments: [String]) throws -> Int32 {
    let parsed = try Arguments(
        arguments,
        valued: [
            "bridge", "environment", "token-file", "ice-server", "turn-credential-file", "ca-file", "turn-ca-file",
        ],
        flagNames: ["json", "network"])
    guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
    let checks: [DoctorCheck]
    if parsed.flag("network") {
        let defaults = try ClientDefaults.loadForCommand()
        checks = NetworkChecks.all(
            bridge: try CallCommand.environment(parsed, defaults: defaults).bridgeBaseURL,
            token: try CallCommand.webCallingToken(parsed, defaults: defaults),
            extra: try ICEServerArguments.servers(parsed),
            caFile: try CallCommand.caFile(parsed)
                ?? ProcessInfo.processInfo.environment["POLYVOICE_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 })
    } else {
        checks =
            LibraryChecks.all() + ConfigChecks.all() + AudioSystemChecks.all() + ToolChecks.all()
            + PipelineChecks.all()
    }
    let failed = checks.filter { $0.status == .fail }.count
    if parsed.flag("json") {
        print(
            JSONValue.object([("ok", .bool(failed == 0)), ("checks", .array(checks.map(\.json)))]).text(pretty: true))
    } else {
        var group = ""
        for check in checks {
            if check.group != group {
                print((group.isEmpty ? "" : "\n") + check.group)
                group = check.group
            }
            print("  \(check.status.mark) \(check.name): \(check.detail)")
            if let fix = check.fix { print("      fix: \(fix)") }
        }
        let warnings = checks.filter { $0.status == .warn }.count
        let passed = checks.count - failed - warnings
        print("\n\(passed) passed, \(warnings) warning(s), \(failed) failed")
        print(failed == 0 ? "Ready for calls." : "Not ready: fix the ✗ lines above.")
    }
    return failed == 0 ? ExitCode.ok : ExitCode.failure
}
