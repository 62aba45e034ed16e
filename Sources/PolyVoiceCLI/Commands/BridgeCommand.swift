// `polyvoice bridge`: the reference voice bridge on this machine (PROTOCOL.md plus extensions).
import FoundationEssentials
import Glibc
import PolyNet
import PolyVoiceBridge

extension Subcommand {
    static let bridge = Subcommand(
        name: "bridge",
        summary: "Run the reference voice bridge locally (echo, play, or scripted agents)",
        help: """
            Usage: polyvoice bridge [options]

            Serves the voice bridge protocol (POST /api/v1/call, SDP routes, events WebSocket, /healthz,
            /metrics) and prints the URL it listens on. Ctrl-C or SIGTERM ends all calls and exits.

            Web calling tokens come from --token-file (one per line, # comments) and/or the environment
            variable POLYVOICE_BRIDGE_TOKEN (comma-separated); several may be given. With none, the bridge
            refuses to start unless --allow-any-token is given. Tokens are never printed or logged.

            Options:
              --config F             Read settings from F first: lines of key = value, each key a long
                                     option below without its dashes (port = 8080, verbose = true);
                                     options on the command line win (the service reads
                                     /etc/polyvoice/bridge.conf this way)
              --host ADDR            Address to bind (default 127.0.0.1)
              --port N               Port (default 8080; 0 picks a free port)
              --agent SPEC           echo (default), echo:MS (delayed echo), play:FILE (play a WAV once),
                                     loop:FILE (play it looped), script:DIR (turn-taking with DIR/1.wav, 2.wav…)
              --agent-profile P      echo's coding: faithful (default: CELT 64 kbit/s on a clean path) or
                                     economy (CELT 32 kbit/s: cheaper, a degraded echo)
              --agent-bitrate N      Every agent's Opus target in bit/s (6000-510000; default 48000, echo's
                                     clean path 64000); while the caller reports loss, FEC adds a third
              --agent-bandwidth B    The widest band every agent codes: narrowband, mediumband, wideband
                                     (default), superwideband or fullband
              --agent-loss-hint N    Code every agent's stream for N % loss (0-100) all call long, whatever
                                     the caller reports: FEC and its third more bits above 0. Every caller
                                     gets the same coding, to compare receivers (default: follow the
                                     caller's RTCP loss reports)
              --reply-latency MS     script: answer MS after the end of the caller's last voiced frame as heard
                                     (300-60000; default: when the VAD ends the turn, 300 ms after it)
              --yield-ms MS|never    script: talk on MS after the caller starts talking over a prompt, then stop
                                     if the caller still talks (default 0: stop at once; a caller silent for
                                     100 ms by then was a backchannel: talk on); never: talk through
              --false-yield          script: stop at once on any sound (to test a false-yield detector)
              --token-file F         Accepted web calling tokens, one per line
              --allow-any-token      Accept any bearer token (development only)
              --media-port N         One UDP port for the media of every call (0 picks a free one),
                                     demultiplexed by ICE ufrag and remote address; without it each call
                                     binds its own port
              --advertise HOST[:PORT] Address to put in ICE candidates instead of the bound one (1:1 NAT
                                     or a relay); with --media-port the candidates carry exactly
                                     HOST:PORT, without it each call has its own port and only HOST is used
              --max-calls N          Concurrent call limit (default 100); beyond it provisioning answers
                                     503 with Retry-After: 5
              --record DIR           Record each caller to DIR/<callId>.wav (script: also a turn timeline)
              --resume-grace S       Seconds a call survives without its events socket (default 10)
              --media-timeout S      Seconds without media before a call ends (default 15)
              --rate N               Requests per second per client (default 20; burst twice that)
              --turn URL             A TURN server to hand to every call in iceServers (repeatable), e.g.
                                     turn:HOST:3478?transport=udp; needs --turn-secret-file
              --turn-secret-file F   The TURN server's REST-API secret (coturn use-auth-secret /
                                     static-auth-secret): each call gets credentials valid for
              --turn-lifetime S      seconds (default 86400): username <expiry>:<call id>, credential
                                     base64(HMAC-SHA1(secret, username))
              --log-format FMT       text (default) or json (one JSON object per line)
              --verbose              Log every request
            """,
        run: { arguments in try BridgeCommand.run(arguments) }
    )
}

private enum BridgeCommand {
    static let valued: Set<String> = [
        "host", "port", "agent", "agent-profile", "agent-bitrate", "agent-bandwidth", "agent-loss-hint",
        "reply-latency", "yield-ms", "token-file", "advertise", "media-port", "max-calls",
        "record", "log-format", "resume-grace", "media-timeout", "rate", "turn", "turn-secret-file", "turn-lifetime",
    ]
    static let flagNames: Set<String> = ["allow-any-token", "verbose", "false-yield"]

    static func run(_ arguments: [String]) throws -> Int32 {
        let commandLine = try Arguments(arguments, valued: valued.union(["config"]), flagNames: flagNames)
        let settings = try commandLine.string("config").map {
            try OptionsFile.settings(from: $0, valued: valued, flagNames: flagNames)
        }
        let fromFile = try OptionsFile.arguments(from: settings ?? [], flagNames: flagNames)
        let parsed = try Arguments(fromFile + arguments, valued: valued.union(["config"]), flagNames: flagNames)
        do { return try run(parsed) } catch let error as UsageError {
            throw OptionsFile.attributed(error, settings: settings ?? [], commandLine: commandLine)
        }
    }

    private static func run(_ parsed: Arguments) throws -> Int32 {
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        let agent = try Self.agent(parsed)
        guard let format = BridgeLogFormat(rawValue: parsed.string("log-format") ?? "text") else {
            throw UsageError("--log-format must be text or json")
        }
        if let advertise = parsed.string("advertise") {
            guard TransportAddress(advertise) != nil || IPAddress(advertise) != nil else {
                throw UsageError("--advertise must be IP or IP:PORT, not '\(advertise)'")
            }
        }
        var fileContents: String?
        if let path = parsed.string("token-file") {
            do { fileContents = try String(contentsOfFile: path, encoding: .utf8) } catch {
                printError("polyvoice bridge: cannot read the token file \(path)")
                return ExitCode.auth
            }
        }
        let tokens = TokenSet.parse(
            fileContents: fileContents, environment: ProcessInfo.processInfo.environment["POLYVOICE_BRIDGE_TOKEN"])
        let rate = Double(try parsed.int("rate", in: 1...100_000) ?? 20)
        let host = parsed.string("host") ?? "127.0.0.1"
        guard IPAddress(host) != nil else { throw UsageError("--host must be an IP address, not '\(host)'") }
        var configuration = BridgeConfiguration(
            host: host, port: try parsed.int("port", in: 0...65535) ?? 8080,
            tokens: tokens, allowAnyToken: parsed.flag("allow-any-token"), agent: agent,
            advertise: parsed.string("advertise"), mediaPort: try parsed.int("media-port", in: 0...65535),
            maxCalls: try parsed.int("max-calls", in: 1...100_000) ?? 100,
            recordDirectory: parsed.string("record").map { URL(fileURLWithPath: $0, isDirectory: true) },
            rateLimit: .init(burst: rate * 2, ratePerSecond: rate),
            timeouts: .init(
                resumeGrace: .milliseconds(Int64((try parsed.double("resume-grace", in: 0...3600) ?? 10) * 1000)),
                mediaTimeout: .milliseconds(Int64((try parsed.double("media-timeout", in: 1...3600) ?? 15) * 1000))),
            log: BridgeLog(format: format, level: parsed.flag("verbose") ? .debug : .info))
        if let profile = parsed.string("agent-profile") {
            guard let choice = EchoProfile(rawValue: profile) else {
                throw UsageError("--agent-profile must be faithful or economy, not '\(profile)'")
            }
            configuration.agentProfile = choice
        }
        configuration.agentCoding.bitrate = try parsed.int("agent-bitrate", in: 6000...510_000)
        if let name = parsed.string("agent-bandwidth") {
            guard let bandwidth = AgentCoding.bandwidth(named: name) else {
                throw UsageError("--agent-bandwidth must be one of \(AgentCoding.bandwidthNames), not '\(name)'")
            }
            configuration.agentCoding.maxBandwidth = bandwidth
        }
        configuration.agentCoding.lossHintPercent = try parsed.int("agent-loss-hint", in: 0...100)
        configuration.turn = try Self.turnServers(parsed)
        // Media sockets bind the host's address (a wildcard host binds them on loopback: use --advertise).
        configuration.media = .transport(localIP: configuration.mediaIP)
        let termination = TerminationSignals()
        let bridge = Bridge(configuration: configuration)
        let port: Int
        do { port = try bridge.start() } catch {
            printError("polyvoice bridge: \(error)")
            switch error {
            case .noTokens: return ExitCode.auth
            case .bind: return ExitCode.network
            case .agent, .alreadyStarted: return ExitCode.failure
            }
        }
        let media = bridge.mediaAddress.map { ", media on udp \($0)" } ?? ""
        print("bridge: listening on http://\(configuration.host):\(port)/ (agent \(agent)\(media))")
        fflush(nil)
        termination.wait()
        bridge.stop()
        return ExitCode.ok
    }

    /// --agent SPEC with the script agent's timing options (which other agents refuse).
    static func agent(_ parsed: Arguments) throws -> AgentSpec {
        do {
            let agent = try AgentSpec(parsing: parsed.string("agent") ?? "echo")
            let replyLatency = parsed.string("reply-latency")
            let yield = parsed.string("yield-ms")
            let falseYield = parsed.flag("false-yield")
            guard case .script(let directory, _) = agent else {
                if replyLatency != nil || yield != nil || falseYield {
                    throw AgentError.invalidSpec(
                        "--reply-latency, --yield-ms and --false-yield need --agent script:DIR")
                }
                return agent
            }
            let timing = try ScriptTiming(replyLatency: replyLatency, yield: yield, falseYield: falseYield)
            return .script(directory: directory, timing: timing)
        } catch let error as AgentError {
            throw UsageError(error.description)
        }
    }

    /// --turn URL… with the secret from --turn-secret-file (its first non-comment line), never the command line.
    static func turnServers(_ parsed: Arguments) throws -> BridgeTURNServers? {
        let urls = parsed.strings("turn")
        for url in urls {
            guard let parsedURL = ICEServerURL(url), parsedURL.scheme == .turn || parsedURL.scheme == .turns else {
                throw UsageError(
                    "--turn must be turn:HOST[:PORT][?transport=udp|tcp] or turns:HOST[:PORT], not '\(url)'")
            }
        }
        let secretPath = parsed.string("turn-secret-file")
        guard !urls.isEmpty else {
            if secretPath != nil { throw UsageError("--turn-secret-file needs --turn") }
            return nil
        }
        guard let secretPath else {
            throw UsageError("--turn needs --turn-secret-file (the TURN server's REST-API secret)")
        }
        guard let text = try? String(contentsOfFile: secretPath, encoding: .utf8) else {
            throw UsageError("cannot read --turn-secret-file '\(secretPath)'")
        }
        guard
            let secret = text.split(whereSeparator: \.isNewline).map({ $0.trimmingWhitespace() })
                .first(where: { !$0.isEmpty && !$0.hasPrefix("#") })
        else { throw UsageError("--turn-secret-file '\(secretPath)' holds no secret") }
        let lifetime = try parsed.int("turn-lifetime", in: 60...31_536_000) ?? 86_400
        return BridgeTURNServers(urls: urls, secret: secret, lifetime: .seconds(lifetime))
    }
}
