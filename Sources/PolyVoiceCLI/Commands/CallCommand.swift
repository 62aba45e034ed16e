// `polyvoice call`: place a call to a voice agent through a bridge, with a live status line or NDJSON.
import FoundationEssentials
import PolyVoice

extension Subcommand {
    static let call = Subcommand(
        name: "call",
        summary: "Place a voice call to an agent (microphone/speaker, WAV files or null audio)",
        help: """
            Usage: polyvoice call (--bridge URL | --environment ENV) [options]

            Places a call, shows a live status line (state, time, mic/speaker levels, RTT, jitter, loss,
            estimated MOS, warnings) and hangs up on Ctrl-C (a second Ctrl-C exits at once).

            The web calling token comes from POLYVOICE_WEBRTC_TOKEN or --token-file (first non-comment line);
            the API key from POLYVOICE_API_KEY. They are never printed. There is no token option on the
            command line, so tokens do not end up in shell history or process lists.

            A path (anything with a '/', a name ending in .wav, or an existing file) is always a file,
            never a device name: --output ./reply writes the file reply.

            Defaults for --bridge/--environment, --token-file, --input and --output come from
            $XDG_CONFIG_HOME/polyvoice/config (~/.config/polyvoice/config) and /etc/polyvoice/config, lines
            of key = value (bridge, environment, token-file, input, output); flags and POLYVOICE_WEBRTC_TOKEN
            win over them. polyvoice doctor shows which file set what.

            Options:
              --bridge URL           Bridge base URL (e.g. http://127.0.0.1:8080/)
              --environment ENV      us, uk, euw, cluster:NAME or local:PORT
              --token-file F         File holding the web calling token
              --input SRC            default (microphone), a device name or id, a WAV file, null, or -
                                     (a WAV stream on standard input, read to its end first)
              --loop-input           Play the --input WAV file again from its start each time it
                                     ends (a long call from a short file; with --duration)
              --output DST           default (speaker), a device name or id, a WAV file, null (or
                                     /dev/null), or - (a WAV stream on standard output; the status
                                     line and --json go to standard error instead). If the file
                                     cannot be written to the end (disk full), recording stops
                                     there with an error on standard error (--json: an "error"
                                     event), the file stays a valid WAV of what was written, the
                                     call goes on, and polyvoice exits 5 when it ends
              --duration S           Hang up after S seconds connected
              --mute                 Start with the microphone muted
              --relay-only           Use only TURN relay paths (iceTransportPolicy "relay")
              --ice-server URL       Also use this STUN/TURN server (repeatable): stun:HOST[:PORT],
                                     turn:HOST[:PORT][?transport=udp|tcp], turns:HOST[:PORT] (TLS,
                                     port 5349); TURN credentials come from
                                     POLYVOICE_TURN_USERNAME and POLYVOICE_TURN_CREDENTIAL or
              --turn-credential-file F  (username on the first line, credential on the second)
              --ca-file F            Trust the CA certificates in PEM file F, besides the system store,
                                     for the bridge's HTTPS, its events socket (wss:) and turns: servers
                                     (default: POLYVOICE_CA_FILE). A server that does not verify fails
                                     the call (exit 4); there is no option to skip verification
              --turn-ca-file F       The same as --ca-file (older name)
              --loss PCT             Drop PCT % of the call's own packets, each way (seeded, from media
                                     connected; no relay process)
              --burst MS             Mean loss burst in ms (20 ms packets): bursty Gilbert-Elliott loss
              --delay MS             One-way delay added each way
              --jitter MS            Standard deviation of a random delay on top (packets may reorder)
              --seed N               Seed of the impairment (default 1)
              --no-audio-processing  Send the microphone untouched: no echo cancellation, noise
                                     suppression or gain control (on by default when input and
                                     output are both devices, always off for files and null)
              --json                 NDJSON events on stdout (state, stats each second, warnings, summary;
                                     stats and summary count captured/played samples and device
                                     underruns/overruns)
              --verbose              Debug logs on stderr (secrets redacted)

            Examples:
              POLYVOICE_WEBRTC_TOKEN=… polyvoice call --environment us
              polyvoice call --bridge http://127.0.0.1:8080/ --token-file tok --input hello.wav \\
                  --output reply.wav --duration 10 --json

            If the bridge restarts or goes away mid-call, the call shows reconnecting; when the bridge no
            longer knows the call (it refuses to resume the events socket) or the network does not come
            back within 30 s, the call fails with that reason, devices and files are closed (a WAV output
            is complete) and polyvoice exits 4.

            Exit codes: 0 ended normally, 2 usage, 3 auth, 4 network/timeout, 5 media/device (also: the
            --output file could not be written to the end).
            """,
        run: { arguments in try CallCommand.run(arguments) }
    )
}

enum CallCommand {
    static func run(_ arguments: [String]) throws -> Int32 {
        let parsed = try Arguments(
            arguments,
            valued: [
                "bridge", "environment", "token-file", "input", "output", "duration", "ice-server",
                "turn-credential-file", "ca-file", "turn-ca-file", "loss", "burst", "delay", "jitter", "seed",
            ],
            flagNames: ["mute", "no-audio-processing", "json", "verbose", "relay-only", "loop-input"])
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        let defaults = try ClientDefaults.loadForCommand()
        let environment = try Self.environment(parsed, defaults: defaults)
        let token = try Self.webCallingToken(parsed, defaults: defaults)
        let duration = try parsed.double("duration", in: 0.1...86_400)
        let input = try Self.input(
            AudioEndpointArgument(parsed.string("input") ?? defaults.value("input") ?? "default"),
            loop: parsed.flag("loop-input"))
        let output = try Self.output(
            AudioEndpointArgument(parsed.string("output") ?? defaults.value("output") ?? "default"))
        var options = VoiceOptions(
            input: input, output: output, muted: parsed.flag("mute"),
            audioProcessing: parsed.flag("no-audio-processing") ? .off : .auto)
        options.iceTransportPolicy = parsed.flag("relay-only") ? .relay : .all
        options.iceServers = try ICEServerArguments.servers(parsed)
        options.trustedCAFile = try Self.caFile(parsed)
        options.networkImpairment = try parsed.networkImpairment()
        let config = Configuration(
            apiKey: ProcessInfo.processInfo.environment["POLYVOICE_API_KEY"].flatMap { $0.isEmpty ? nil : $0 }
                ?? "not-set", environment: environment, webrtcToken: token,
            logLevel: parsed.flag("verbose") ? .debug : .error)
        let reporter: any CallReporter = parsed.flag("json") ? JSONCallReporter() : TextCallReporter()
        let outcome = CallRunner.runBlocking(
            config: config, options: options, duration: duration.map { .milliseconds(Int64($0 * 1000)) },
            reporter: reporter)
        return outcome.exitCode
    }

    /// From --bridge or --environment, else from the config files' `bridge` or `environment`.
    static func environment(_ parsed: Arguments, defaults: ClientDefaults) throws -> Environment {
        let flags = (parsed.string("bridge"), parsed.string("environment"))
        guard flags == (nil, nil) else { return try environment(bridge: flags.0, environment: flags.1) }
        let setting = defaults.settings["bridge"] ?? defaults.settings["environment"]
        do {
            return try environment(bridge: defaults.value("bridge"), environment: defaults.value("environment"))
        } catch let error as UsageError where setting != nil {
            // A bad value from a config file: say which line to fix.
            throw UsageError("\(error.message) (set by \(setting!.source))")
        }
    }

    private static func environment(bridge: String?, environment: String?) throws -> Environment {
        switch (bridge, environment) {
        case (.some, .some): throw UsageError("give --bridge or --environment, not both")
        case (nil, nil): throw UsageError("missing --bridge URL or --environment us|uk|euw|cluster:NAME|local:PORT")
        case (let url?, nil):
            guard let parsedURL = URL(string: url), parsedURL.scheme == "http" || parsedURL.scheme == "https",
                parsedURL.host != nil
            else { throw UsageError("--bridge must be an http or https URL, not '\(url)'") }
            return .custom(bridge: parsedURL)
        case (nil, let name?):
            switch name {
            case "us": return .us
            case "uk": return .uk
            case "euw": return .euw
            case let text where text.hasPrefix("cluster:"): return .cluster(String(text.dropFirst(8)))
            case let text where text.hasPrefix("local:"):
                guard let port = Int(text.dropFirst(6)), (1...65535).contains(port) else {
                    throw UsageError("--environment local:PORT needs a port from 1 to 65535")
                }
                return .local(port: port)
            default: throw UsageError("unknown environment '\(name)' (us, uk, euw, cluster:NAME, local:PORT)")
            }
        }
    }

    /// From --token-file (first line that is not empty or a # comment), POLYVOICE_WEBRTC_TOKEN, or the
    /// config files' `token-file`, in that order.
    static func webCallingToken(_ parsed: Arguments, defaults: ClientDefaults) throws -> String {
        let variable = ProcessInfo.processInfo.environment["POLYVOICE_WEBRTC_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        if parsed.string("token-file") == nil, let variable { return variable }
        let configured = defaults.settings["token-file"]
        if let path = parsed.string("token-file") ?? configured?.value {
            // Name where the path came from: a stale config line is otherwise hard to find.
            let origin = parsed.string("token-file") != nil ? "--token-file" : "token-file (\(configured!.source))"
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw UsageError("cannot read \(origin) '\(path)'")
            }
            let line = text.split(whereSeparator: \.isNewline).map { $0.trimmingWhitespace() }
                .first { !$0.isEmpty && !$0.hasPrefix("#") }
            guard let line else { throw UsageError("\(origin) '\(path)' holds no token") }
            return line
        }
        throw UsageError(
            "no web calling token: set POLYVOICE_WEBRTC_TOKEN, give --token-file or set token-file in "
                + "the config file")
    }

    /// `--ca-file F` (or its older name `--turn-ca-file`): a readable file, never inline PEM text.
    static func caFile(_ parsed: Arguments) throws -> String? {
        let given = (parsed.string("ca-file"), parsed.string("turn-ca-file"))
        if given.0 != nil, given.1 != nil { throw UsageError("give --ca-file or --turn-ca-file, not both") }
        guard let path = given.0 ?? given.1 else { return nil }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw UsageError("cannot read the --ca-file '\(path)'")
        }
        return path
    }

    static func input(_ argument: AudioEndpointArgument, loop: Bool = false) throws -> AudioInput {
        switch argument {
        case .standardStream: return .file(URL(fileURLWithPath: StandardAudioStream.inputPath), loop: loop)
        case .file(let path): return .file(URL(fileURLWithPath: path), loop: loop)
        case _ where loop: throw UsageError("--loop-input needs a WAV file (or -) as --input")
        case .defaultDevice: return .defaultDevice
        case .null: return .null
        case .device(let name): return .device(name)
        }
    }

    /// `-` takes standard output for the WAV stream, so call this before anything is printed.
    static func output(_ argument: AudioEndpointArgument) throws -> AudioOutput {
        switch argument {
        case .defaultDevice: .defaultDevice
        case .null: .null
        case .standardStream: .file(URL(fileURLWithPath: try StandardAudioStream.takeStandardOutput()))
        case .file(let path): .file(URL(fileURLWithPath: path))
        case .device(let name): .device(name)
        }
    }
}
