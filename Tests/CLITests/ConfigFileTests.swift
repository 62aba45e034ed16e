// Config files as a user meets them: defaults from ~/.config/polyvoice/config and /etc/polyvoice/config,
// flags win, a bad line names its file and line, doctor says which file set what, bridge --config.
import Foundation
import Testing

@Suite("config files", .serialized)
struct ConfigFileTests {
    /// A home with `user` as $XDG_CONFIG_HOME/polyvoice/config and `system` as the system config.
    static func home(user: String?, system: String? = nil) throws -> (URL, [String: String]) {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("pv-config-\(UUID().uuidString)")
        let configDirectory = home.appendingPathComponent("xdg/polyvoice")
        try FileManager.default.createDirectory(at: configDirectory, withIntermediateDirectories: true)
        if let user {
            try user.write(to: configDirectory.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        }
        let systemFile = home.appendingPathComponent("etc-config")
        if let system { try system.write(to: systemFile, atomically: true, encoding: .utf8) }
        let environment = [
            "HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent("xdg").path,
            "POLYVOICE_SYSTEM_CONFIG": systemFile.path,
        ]
        return (home, environment)
    }

    @Test func aBadLineNamesTheFileAndTheLine() async throws {
        let (home, environment) = try Self.home(user: "# defaults\nbridge = http://127.0.0.1:1/\nnot a setting\n")
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await runPolyvoice(["call", "--input", "null"], environment: environment)
        #expect(result.status == 2)
        #expect(result.stderr.contains("xdg/polyvoice/config:3: expected 'key = value'"), "\(result.stderr)")

        let (badValueHome, badValue) = try Self.home(user: "\nenvironment = mars\n")
        defer { try? FileManager.default.removeItem(at: badValueHome) }
        let mars = try await runPolyvoice(["call"], environment: badValue)
        #expect(mars.status == 2)
        #expect(
            mars.stderr.contains("unknown environment 'mars'") && mars.stderr.contains("config:2)"), "\(mars.stderr)")

        let (other, unknown) = try Self.home(user: nil, system: "colour = blue\n")
        defer { try? FileManager.default.removeItem(at: other) }
        let second = try await runPolyvoice(["call"], environment: unknown)
        #expect(second.status == 2)
        #expect(second.stderr.contains("etc-config:1: unknown key 'colour'"), "\(second.stderr)")
    }

    @Test func defaultsComeFromTheFilesAndFlagsWin() async throws {
        let bridge = try BridgeProcess()
        defer { bridge.stop() }
        // The user file names an unreachable bridge and a token file relative to itself; the system file's
        // environment is overridden by the user's bridge.
        let (home, environment) = try Self.home(
            user: "bridge = http://127.0.0.1:1/\ntoken-file = token\ninput = null\noutput = null\n",
            system: "environment = local:\(bridge.port)\n")
        defer { try? FileManager.default.removeItem(at: home) }
        try "# the test token\n\(BridgeProcess.token)\n".write(
            to: home.appendingPathComponent("xdg/polyvoice/token"), atomically: true, encoding: .utf8)

        let fromFiles = try await runPolyvoice(["call", "--duration", "1"], environment: environment)
        #expect(fromFiles.status == 4, "the user file's unreachable bridge: \(fromFiles.stdout) \(fromFiles.stderr)")

        let flagsWin = try await runPolyvoice(
            ["call", "--environment", "local:\(bridge.port)", "--duration", "1"], environment: environment)
        #expect(flagsWin.status == 0, "--environment beats the file, the file's token-file is used: \(flagsWin.stdout)")
    }

    @Test func doctorShowsWhichFileSetWhat() async throws {
        let (home, environment) = try Self.home(
            user: "\n# mine\ninput = null\n", system: "input = default\noutput = speaker\n")
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await runPolyvoice(["doctor", "--json"], environment: environment)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let checks = try #require(object?["checks"] as? [[String: Any]]).filter {
            $0["group"] as? String == "Configuration"
        }
        let details = Dictionary(uniqueKeysWithValues: checks.map { ($0["name"] as! String, $0["detail"] as! String) })
        #expect(details["input"] == "null (set by \(home.path)/xdg/polyvoice/config:3)", "\(details)")
        #expect(details["output"] == "speaker (set by \(home.path)/etc-config:2)", "\(details)")
        #expect(details["\(home.path)/xdg/polyvoice/config"] == "read")
    }

    @Test func bridgeReadsItsConfigFileAndFlagsWin() async throws {
        let (home, _) = try Self.home(user: nil)
        defer { try? FileManager.default.removeItem(at: home) }
        let conf = home.appendingPathComponent("bridge.conf")
        try "# service settings\nagent = nonsense\nmax-calls = 3\n".write(to: conf, atomically: true, encoding: .utf8)
        // BridgeProcess passes --agent echo, which must win over the file's bad agent.
        let bridge = try BridgeProcess(extraArguments: ["--config", conf.path])
        // The bridge prints its URL just before it installs its SIGTERM handler: a signal in between is lost
        // (waitForTermination ignores the signal first), so give it a moment.
        try await Task.sleep(for: .milliseconds(500))
        bridge.stop()

        try "port = 0\nverbose = maybe\n".write(to: conf, atomically: true, encoding: .utf8)
        let bad = try await runPolyvoice(["bridge", "--config", conf.path])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("bridge.conf:2: 'verbose' takes true or false"), "\(bad.stderr)")
        // A bad value from the file names the line; the same option on the command line is the user's own.
        try "# service\nport = 99999\n".write(to: conf, atomically: true, encoding: .utf8)
        let badPort = try await runPolyvoice(["bridge", "--config", conf.path])
        #expect(badPort.status == 2)
        #expect(
            badPort.stderr.contains("--port must be") && badPort.stderr.contains("bridge.conf:2)"), "\(badPort.stderr)")
        let flagged = try await runPolyvoice(["bridge", "--config", conf.path, "--port", "99998"])
        #expect(flagged.status == 2 && !flagged.stderr.contains("bridge.conf"), "\(flagged.stderr)")
        let missing = try await runPolyvoice(["bridge", "--config", home.appendingPathComponent("nope").path])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("no such file"))
    }
}
