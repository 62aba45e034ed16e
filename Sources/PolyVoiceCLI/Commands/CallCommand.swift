// `polyvoice call`: place a call to a voice agent through a bridge, with a live status line or NDJSON.
import Foundation
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

            Options:
              --bridge URL           Bridge base URL (e.g. http://127.0.0.1:8080/)
              --environment ENV      us, uk, euw, cluster:NAME or local:PORT
              --token-file F         File holding the web calling token
              --input SRC            default (microphone), a device name or id, FILE.wav, or null
              --output DST           default (speaker), a device name or id, FILE.wav, or null
              --duration S           Hang up after S seconds connected
              --mute                 Start with the microphone muted
              --relay-only           Use only TURN relay paths (iceTransportPolicy "relay")
              --ice-server URL       Also use this STUN/TURN server (repeatable): stun:HOST[:PORT],
                                     turn:HOST[:PORT][?transport=udp|tcp], turns:HOST[:PORT] (TLS,
                                     port 5349); TURN credentials come from
                                     POLYVOICE_TURN_USERNAME and POLYVOICE_TURN_CREDENTIAL or
              --turn-credential-file F  (username on the first line, credential on the second)
              --turn-ca-file F       Trust the CA certificates in PEM file F for turns: servers, besides
                                     the system store (default: POLYVOICE_CA_FILE)
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

            Exit codes: 0 ended normally, 2 usage, 3 auth, 4 network/timeout, 5 media/device.
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
                "turn-credential-file", "turn-ca-file", "loss", "burst", "delay", "jitter", "seed",
            ],
            flagNames: ["mute", "no-audio-processing", "json", "verbose", "relay-only"])
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        let environment = try Self.environment(parsed)
        let token = try Self.webCallingToken(parsed)
        let duration = try parsed.double("duration", in: 0.1...86_400)
        var options = VoiceOptions(
            input: Self.input(parsed.string("input") ?? "default"),
            output: Self.output(parsed.string("output") ?? "default"), muted: parsed.flag("mute"),
            audioProcessing: parsed.flag("no-audio-processing") ? .off : .auto)
        options.iceTransportPolicy = parsed.flag("relay-only") ? .relay : .all
        options.iceServers = try ICEServerArguments.servers(parsed)
        options.trustedCAFile = parsed.string("turn-ca-file")
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

    static func environment(_ parsed: Arguments) throws -> Environment {
        switch (parsed.string("bridge"), parsed.string("environment")) {
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

    /// From --token-file (first line that is not empty or a # comment) or POLYVOICE_WEBRTC_TOKEN.
    static func webCallingToken(_ parsed: Arguments) throws -> String {
        if let path = parsed.string("token-file") {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw UsageError("cannot read --token-file '\(path)'")
            }
            let line = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .first { !$0.isEmpty && !$0.hasPrefix("#") }
            guard let line else { throw UsageError("--token-file '\(path)' holds no token") }
            return line
        }
        guard let token = ProcessInfo.processInfo.environment["POLYVOICE_WEBRTC_TOKEN"], !token.isEmpty else {
            throw UsageError("no web calling token: set POLYVOICE_WEBRTC_TOKEN or give --token-file")
        }
        return token
    }

    static func input(_ text: String) -> AudioInput {
        switch text {
        case "default": .defaultDevice
        case "null": .null
        case let path where path.lowercased().hasSuffix(".wav"): .file(URL(fileURLWithPath: path), loop: false)
        default: .device(text)
        }
    }

    static func output(_ text: String) -> AudioOutput {
        switch text {
        case "default": .defaultDevice
        case "null": .null
        case let path where path.lowercased().hasSuffix(".wav"): .file(URL(fileURLWithPath: path))
        default: .device(text)
        }
    }
}
