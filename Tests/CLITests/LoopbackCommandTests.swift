// `polyvoice loopback` run as a process: file → file in virtual time, device mode, errors and exit codes.
import Foundation
import Testing

@Suite(.serialized) struct LoopbackCommandTests {
    @Test func fileToFilePrintsStatsAndWritesTheOutput() async throws {
        let directory = try CodecCommandTests.workspace()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.wav").path
        let output = directory.appendingPathComponent("out.wav").path
        let arguments = [
            "loopback", "--input", input, "--output", output, "--loss", "10", "--jitter", "10", "--seed", "3",
        ]
        let result = try await runPolyvoice(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("mode: virtual-time"))
        let figures = CodecCommandTests.figures(result.stdout)
        let packets = try #require(figures["packets"])
        let lost = try #require(figures["lost"])
        #expect(packets > 50)
        #expect(lost > 0 && lost < packets / 3)
        #expect(try #require(figures["fec-recovered"]) <= lost)
        #expect((0..<100).contains(try #require(figures["concealed-percent"])))
        #expect(try #require(figures["mean-delay-ms"]) > 10)
        // The output holds at least the input's length (plus the loopback delay) of 48 kHz audio.
        let outputBytes = try #require(try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int)
        #expect(outputBytes > Int(packets - 1) * 960 * 2)

        // Same seed, same figures.
        #expect(try await runPolyvoice(arguments).stdout == result.stdout)
    }

    @Test func jsonParsesAndFollowsTheOptions() async throws {
        let directory = try CodecCommandTests.workspace()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.wav").path
        let output = directory.appendingPathComponent("out.wav").path
        let result = try await runPolyvoice([
            "loopback", "--input", input, "--output", output, "--loss", "20", "--no-fec", "--delay", "60", "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let object = try #require(parsed)
        #expect(object["mode"] as? String == "virtual-time")
        #expect(object["fec"] as? Bool == false)
        #expect(object["fec_recovered"] as? Int == 0)
        #expect((object["lost"] as? Int ?? 0) > 0)
        #expect((object["concealed_percent"] as? Double ?? 0) > 0)
        #expect(abs((object["network_delay_ms"] as? Double ?? 0) - 60) < 0.01)
        #expect((object["mean_delay_ms"] as? Double ?? 0) > 60)
        // PESQ/STOI when the project's venv has them; otherwise the reason is given instead.
        if let pesq = object["pesq_wb"] as? Double {
            #expect((1.0...4.7).contains(pesq))
            #expect((0.0...1.0).contains(object["stoi"] as? Double ?? -1))
        } else {
            #expect(object["quality_unavailable"] is String, "\(object)")
        }
    }

    @Test func wrongArgumentsAreUsageErrors() async throws {
        let cases: [[String]] = [
            ["loopback", "--loss", "150"], ["loopback", "--burst", "60"], ["loopback", "--bitrate", "fast"],
            ["loopback", "--duration", "0"], ["loopback", "--jitter", "-5"], ["loopback", "--no-fec=yes"],
            ["loopback", "--frobnicate"], ["loopback", "extra"], ["loopback", "--input"],
        ]
        for arguments in cases {
            let result = try await runPolyvoice(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains("polyvoice loopback --help"), "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments)")
        }
    }

    @Test func missingInputFileFailsWithExitOne() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pv-loop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("missing.wav").path
        let output = directory.appendingPathComponent("out.wav").path
        let result = try await runPolyvoice(["loopback", "--input", missing, "--output", output])
        #expect(result.status == 1)
        #expect(result.stderr.contains(missing))
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func missingDeviceFailsWithExitFiveAndTheList() async throws {
        let home = try DeviceTestHome(asoundrc: DeviceTestHome.nullDefault)
        defer { home.remove() }
        let environment = home.environment
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pv-\(UUID().uuidString).wav")
        let result = try await runPolyvoice(
            ["loopback", "--input", "no-such-microphone", "--output", output.path], environment: environment)
        #expect(result.status == 5)
        #expect(result.stderr.contains("no input device matches 'no-such-microphone'"))
        #expect(result.stderr.contains("Audio devices:"))
        #expect(result.stderr.contains(": default"))
    }

    /// Device mode runs in real time (paced by the wall clock even on ALSA's unpaced null device).
    @Test func deviceModeRunsInRealTime() async throws {
        let home = try DeviceTestHome(asoundrc: DeviceTestHome.nullDefault)
        defer { home.remove() }
        let environment = home.environment
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pv-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: output) }
        let started = Date()
        let result = try await runPolyvoice(
            ["loopback", "--input", "default", "--output", output.path, "--duration", "1", "--loss", "10"],
            environment: environment)
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(elapsed >= 0.95, "\(elapsed) s")
        #expect(result.stdout.contains("mode: real-time"))
        let figures = CodecCommandTests.figures(result.stdout)
        #expect(figures["packets"] == 50)
        // Frames are timed by their 20 ms slots, so a loaded machine's late wake-ups are not taken for jitter.
        #expect(try #require(figures["buffer-delay-ms"]) < 100, "\(result.stdout)")
        let bytes = try #require(try FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int)
        #expect(bytes == 44 + 50 * 960 * 2)
    }

    /// Ctrl-C ends a device run early and cleanly: statistics printed, exit 0.
    @Test func interruptStopsCleanly() async throws {
        let home = try DeviceTestHome(asoundrc: DeviceTestHome.nullDefault)
        defer { home.remove() }
        let environment = home.environment
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pv-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = polyvoiceBinary()
        process.arguments = ["loopback", "--input", "default", "--output", output.path, "--duration", "30"]
        process.environment = environment
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Interrupt once the loop is running (it writes audio), whatever the machine's load.
        for _ in 0..<200 {
            let size = (try? FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int) ?? 0
            if size > 44 + 25 * 960 * 2 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.interrupt()
        let text = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let data = stdout.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }
        }
        #expect(process.terminationStatus == 0)
        let seconds = try #require(CodecCommandTests.figures(text)["seconds"])
        #expect(seconds > 0.5 && seconds < 10, "\(text)")
        #expect(FileManager.default.fileExists(atPath: output.path))
    }

    @Test func helpShowsExamples() async throws {
        let result = try await runPolyvoice(["loopback", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("--no-fec") && result.stdout.contains("Examples:"))
        #expect(try await runPolyvoice(["--help"]).stdout.contains("loopback"))
    }
}
