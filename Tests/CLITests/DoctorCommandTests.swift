// `polyvoice doctor` run as a process: every check listed, exit 0 on this machine, devices only warned about.
import Foundation
import Testing

@Suite(.serialized) struct DoctorCommandTests {
    @Test func passesOnThisMachineAndListsItsChecks() async throws {
        let result = try await runPolyvoice(["doctor"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        for line in [
            "✓ Opus: libopus", "✓ libsrtp2: libsrtp2", "✓ OpenSSL: OpenSSL 3", "✓ libwebsockets:", "✓ PortAudio:",
            "✓ Host APIs: ALSA", "PulseAudio:", "ALSA default pcm:", "espeak-ng:", "Quality tools",
            "✓ File loopback: 1000 Hz tone came back at", "✓ UDP on 127.0.0.1:",
        ] {
            #expect(result.stdout.contains(line), "missing '\(line)' in\n\(result.stdout)")
        }
        #expect(result.stdout.contains(" 0 failed"))
        #expect(!result.stdout.contains("✗"))
    }

    /// Without a sound server or card, devices are a warning with a fix, not a failure.
    @Test func noDevicesIsAWarning() async throws {
        let home = try DeviceTestHome(asoundrc: nil)
        defer { home.remove() }
        let environment = home.environment
        let result = try await runPolyvoice(["doctor"], environment: environment)
        #expect(result.status == 0, "\(result.stdout)")
        if !FileManager.default.fileExists(atPath: "/dev/snd") {
            #expect(result.stdout.contains("! Devices: none"))
            #expect(result.stdout.contains("scripts/pulse-null.sh start"))
            #expect(result.stdout.contains("! PulseAudio: not reachable"))
        }
    }

    @Test func reportsTheDefaultDevices() async throws {
        let home = try DeviceTestHome(asoundrc: DeviceTestHome.nullDefault)
        defer { home.remove() }
        let environment = home.environment
        let result = try await runPolyvoice(["doctor"], environment: environment)
        #expect(result.status == 0)
        #expect(result.stdout.contains("✓ Default input: "), "\(result.stdout)")
        #expect(result.stdout.contains("✓ Default output: "))
        #expect(result.stdout.contains("✓ ALSA default pcm: type NULL"))
    }

    @Test func jsonListsEveryCheck() async throws {
        let result = try await runPolyvoice(["doctor", "--json"])
        #expect(result.status == 0)
        let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let object = try #require(parsed)
        #expect(object["ok"] as? Bool == true)
        let checks = try #require(object["checks"] as? [[String: Any]])
        let names = checks.compactMap { $0["name"] as? String }
        #expect(names.count == checks.count && Set(names).count == names.count)
        #expect(checks.allSatisfy { ["pass", "warn", "fail"].contains($0["status"] as? String ?? "") })
        #expect(checks.filter { $0["status"] as? String != "pass" }.allSatisfy { $0["fix"] is String })
        let opus = try #require(checks.first { $0["name"] as? String == "Opus" })
        #expect(opus["status"] as? String == "pass")
    }

    @Test func unexpectedArgumentsAreUsageErrors() async throws {
        let result = try await runPolyvoice(["doctor", "--fix"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown option --fix"))
        #expect(try await runPolyvoice(["doctor", "now"]).status == 2)
    }
}
