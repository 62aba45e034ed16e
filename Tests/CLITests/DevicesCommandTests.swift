// `polyvoice devices` run as a process, against ALSA configurations made for the test.
import Foundation
import Testing

/// Serialized: each test blocks a test-runner thread while the process runs; one at a time leaves the
/// others to suites that need them (e.g. in-process HTTP servers).
@Suite(.serialized) struct DevicesCommandTests {
    @Test func listsAnALSANullDeviceAsTheDefault() async throws {
        let home = try DeviceTestHome(asoundrc: DeviceTestHome.nullDefault)
        defer { home.remove() }
        let environment = home.environment
        let result = try await runPolyvoice(["devices"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("ID  NAME") == true, "\(result.stdout)")
        let row = try #require(lines.first { $0.contains(" default ") })
        #expect(row.contains("ALSA") && row.hasSuffix("input,output"), "\(row)")
    }

    @Test func jsonHasOneObjectPerDevice() async throws {
        let home = try DeviceTestHome(asoundrc: DeviceTestHome.nullDefault)
        defer { home.remove() }
        let environment = home.environment
        let result = try await runPolyvoice(["devices", "--json"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        let devices = try #require(parsed)
        let defaultDevice = try #require(devices.first { $0["name"] as? String == "default" })
        #expect(defaultDevice["isDefaultInput"] as? Bool == true)
        #expect(defaultDevice["isDefaultOutput"] as? Bool == true)
        #expect((defaultDevice["maxInputChannels"] as? Int ?? 0) > 0)
        #expect((defaultDevice["defaultSampleRate"] as? Double ?? 0) > 0)
    }

    /// Without a sound card (`/dev/snd`) or server, the command says so and still succeeds; with a card,
    /// it lists it.
    @Test func machineWithoutDevicesSaysSo() async throws {
        let home = try DeviceTestHome(asoundrc: nil)
        defer { home.remove() }
        let result = try await runPolyvoice(["devices"], environment: home.environment)
        #expect(result.status == 0, "\(result.stderr)")
        if FileManager.default.fileExists(atPath: "/dev/snd") {
            #expect(result.stdout.hasPrefix("ID  NAME"))
        } else {
            #expect(result.stdout.contains("No audio devices found"))
            #expect(result.stdout.contains("scripts/pulse-null.sh"))
        }
    }

    @Test func unexpectedArgumentsAreUsageErrors() async throws {
        let option = try await runPolyvoice(["devices", "--verbose"])
        #expect(option.status == 2)
        #expect(option.stderr.contains("unknown option --verbose"))
        let positional = try await runPolyvoice(["devices", "extra"])
        #expect(positional.status == 2)
        #expect(positional.stderr.contains("unexpected argument 'extra'"))
    }
}
