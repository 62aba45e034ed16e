// `polyvoice demo`: a whole call on this machine — the embedded reference bridge, generated speech as the
// caller, both sides recorded, and a summary with setup time, stats and (when available) PESQ/STOI.
import FoundationEssentials
import PolyCore
import PolyVoice
import PolyVoiceBridge
import PolyVoiceTesting

extension Subcommand {
    static let demo = Subcommand(
        name: "demo",
        summary: "Run a complete local call: reference bridge + generated speech, with a quality summary",
        help: """
            Usage: polyvoice demo [options]

            Starts the reference bridge on 127.0.0.1 with a generated token, generates the caller's speech
            (and the agent's prompts) with espeak-ng, places a call with file audio, records both sides and
            prints a summary: setup time (provision → connected), duration, packets, loss, jitter, RTT,
            concealment, estimated MOS, and PESQ/STOI when the project's Python venv has pesq and pystoi.

            Agents:
              script  (default) answers each caller turn with a prompt; talking over it is a barge-in.
                      PESQ/STOI compare the caller's speech with what the bridge received.
              echo    sends the caller's audio straight back; PESQ/STOI compare the echo with the input
                      (both directions of the call).

            Options:
              --agent A        script or echo (default script)
              --out DIR        Where the WAVs go (default out/demo)
              --verbose        Debug logs on stderr (secrets redacted)

            Example:
              polyvoice demo && ls out/demo
            """,
        run: { arguments in try DemoCommand.run(arguments) }
    )
}

private enum DemoCommand {
    static let callerText =
        "Hello, I would like to check the opening hours of the downtown store. "
        + "Also, can I book a table for two on Friday evening?"
    static let prompts = [
        "Hi, thanks for calling. The downtown store is open from nine to six, every day of the week.",
        "Of course. A table for two on Friday evening is booked. Is there anything else I can help with?",
        // Not reached by the demo call: the third answer of the conversation test scripts/demo.sh runs next.
        "Certainly, go ahead. I have your booking open, and I can add a note, change the time, "
            + "or send you a confirmation by text message.",
    ]

    static func run(_ arguments: [String]) throws -> Int32 {
        let parsed = try Arguments(arguments, valued: ["agent", "out"], flagNames: ["verbose"])
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        let agentName = parsed.string("agent") ?? "script"
        guard ["script", "echo"].contains(agentName) else {
            throw UsageError("--agent must be script or echo, not '\(agentName)'")
        }
        let out = URL(fileURLWithPath: parsed.string("out") ?? "out/demo", isDirectory: true).standardizedFileURL
        let recordings = out.appendingPathComponent("bridge", isDirectory: true)
        let received = out.appendingPathComponent("caller-heard.wav")
        try? FileManager.default.removeItem(at: recordings)
        try FileManager.default.createDirectory(at: recordings, withIntermediateDirectories: true)

        say("Generating speech with espeak-ng…")
        let caller: URL
        let agent: AgentSpec
        do {
            let speech = try SpeechFixtures(cacheDirectory: out.appendingPathComponent("speech"))
            caller = try copy(speech.speech(.male, text: callerText), to: out.appendingPathComponent("caller.wav"))
            if agentName == "script" {
                let script = out.appendingPathComponent("script", isDirectory: true)
                try FileManager.default.createDirectory(at: script, withIntermediateDirectories: true)
                for (index, text) in prompts.enumerated() {
                    _ = try copy(
                        speech.speech(.female, text: text), to: script.appendingPathComponent("\(index + 1).wav"))
                }
                agent = .script(directory: script.path)
            } else {
                agent = .echo(delayMilliseconds: 0)
            }
        } catch {
            printError("polyvoice demo: cannot generate speech (is espeak-ng installed?): \(error)")
            return ExitCode.media
        }

        let token = (0..<4).map { _ in String(UInt64.random(in: 0...UInt64.max), radix: 16) }.joined()
        let bridge = Bridge(
            configuration: BridgeConfiguration(
                tokens: [token], agent: agent, recordDirectory: recordings, media: .transport(),
                log: BridgeLog(level: parsed.flag("verbose") ? .info : .error)))
        let port: Int
        do {
            port = try bridge.start()
        } catch {
            printError("polyvoice demo: cannot start the bridge: \(error)")
            return ExitCode.network
        }
        say("Reference bridge on http://127.0.0.1:\(port)/ (agent \(agent)); calling…")

        let config = Configuration(
            apiKey: "demo", environment: .local(port: port), webrtcToken: token,
            logLevel: parsed.flag("verbose") ? .debug : .error)
        let options = VoiceOptions(input: .file(caller, loop: false), output: .file(received))
        // Hang up once the caller has finished and the agent had time to answer.
        let outcome = CallRunner.runBlocking(
            config: config, options: options, duration: .seconds(60), reporter: TextCallReporter(quiet: true),
            stopWhenInputEnds: agentName == "script" ? .seconds(7) : .seconds(2))
        bridge.stop()  // the recordings are written as the media closes, in the background
        let heardByAgent = waitForRecording(in: recordings)

        say("")
        say("Demo call (\(agentName) agent)")
        for line in TextCallReporter.summaryLines(outcome) { say(line) }
        let (label, degraded) =
            agentName == "echo"
            ? ("echo vs caller (round trip)", received) : ("bridge recording vs caller (one way)", heardByAgent)
        printQuality(label: label, reference: caller, degraded: degraded)
        say("WAVs in \(out.path)/:")
        say("  caller.wav        what the caller said")
        say("  caller-heard.wav  what the caller heard (the agent)")
        if let heardByAgent { say("  bridge/\(heardByAgent.lastPathComponent)  what the bridge received") }
        if agentName == "script" { say("  script/*.wav      the agent's prompts (timeline JSON in bridge/)") }
        return outcome.exitCode
    }

    private static func printQuality(label: String, reference: URL, degraded: URL?) {
        guard let degraded else {
            say("  PESQ/STOI: no recording to score")
            return
        }
        do {
            let score = try QualityScorer().score(reference: reference, degraded: degraded)
            say(
                "  \(label): "
                    + String(
                        cFormat: "PESQ (wideband) %.2f, STOI %.2f, delay %.0f ms", score.pesqWideband, score.stoi,
                        score.delayMilliseconds))
        } catch {
            say("  PESQ/STOI: unavailable (\(String(describing: error).prefix(120)))")
        }
    }

    /// The bridge's recording of the caller, once written (up to 5 s).
    private static func waitForRecording(in directory: URL) -> URL? {
        for _ in 0..<50 {
            let found = try? FileManager.default.contentsOfDirectory(atPath: directory.path).first {
                $0.hasSuffix(".wav")
            }
            if let found { return directory.appendingPathComponent(found) }
            DetachedThread.sleep(seconds: 0.1)
        }
        return nil
    }

    private static func say(_ line: String) { writeOut(line + "\n") }

    private static func copy(_ source: URL, to destination: URL) throws -> URL {
        try? FileManager.default.removeItem(at: destination)
        try FileManager.default.copyItem(at: source, to: destination)
        return destination
    }
}
