// `polyvoice call` when things break under it (issue 19): the bridge restarted mid-call, the disk holding
// the --output file full. Real processes; the disk-full test mounts a 200 KB tmpfs and needs root (CI is root).
import Foundation
import Testing

@Suite("polyvoice call faults", .serialized)
struct CallFaultTests {
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pv-fault-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func aBridgeRestartedMidCallEndsItWithTheDocumentedErrorAndACompleteWAV() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let reply = directory.appendingPathComponent("reply.wav")
        var bridge = try KillableBridge()
        let port = bridge.port
        let call = try CallChild(bridgePort: port, arguments: ["--input", "null", "--output", reply.path])
        defer { call.signal(SIGKILL) }
        #expect(await call.wait(.seconds(15)) { _ in call.states.contains("connected") })
        try await Task.sleep(for: .seconds(1))

        bridge.kill()  // no DTLS close, no BYE, no close frame: the process is gone
        #expect(await call.wait(.seconds(10)) { _ in call.states.contains("reconnecting") })
        bridge = try KillableBridge(port: port)  // the same port, a bridge that never heard of the call
        defer { bridge.stop() }

        let status = await call.exitStatus(within: .seconds(40))
        #expect(status == 4, "exit status \(String(describing: status)); stderr: \(call.standardError)")
        let states = call.states
        let connected = try #require(states.firstIndex(of: "connected"))
        let reconnecting = try #require(states.firstIndex(of: "reconnecting"))
        #expect(connected < reconnecting)
        #expect(states.last == "failed")
        let failure = call.events.last { $0["type"] as? String == "state" }?["error"] as? String
        #expect(failure?.contains("The bridge refused to resume the call's events socket") == true, "\(failure ?? "")")
        let summary = call.events.last { $0["type"] as? String == "summary" }
        #expect(summary?["exitCode"] as? Int == 4)

        // The file was closed by the call (header sizes patched) and holds what was played.
        let check = try WAVCheck(reply)
        #expect(check.isComplete, "RIFF \(check.riffSize), data \(check.dataSize), file \(check.fileSize)")
        #expect(check.dataSize >= 48_000 * 2)  // more than the second of audio before the kill
        let read = try pythonWave(reply)
        #expect(read.hasSuffix("48000 1 2"), "\(read)")
    }

    @Test func aFullDiskStopsTheRecordingWithAClearErrorAndTheCallGoesOn() async throws {
        // Mounting a tmpfs needs root; a test that cannot run must say so, not pass.
        try #require(geteuid() == 0, "this test mounts a 200 KB tmpfs for --output and needs root (CI runs as root)")
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/usr/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=200k", "tmpfs", directory.path]
        try mount.run()
        mount.waitUntilExit()
        try #require(mount.terminationStatus == 0, "mount -t tmpfs failed")
        defer {
            let umount = Process()
            umount.executableURL = URL(fileURLWithPath: "/usr/bin/umount")
            umount.arguments = [directory.path]
            try? umount.run()
            umount.waitUntilExit()
        }
        let reply = directory.appendingPathComponent("reply.wav")
        let bridge = try KillableBridge()
        defer { bridge.stop() }
        // 48 kHz 16-bit mono is 96 KB/s: the 200 KB disk is full after about 2 s of the 4 s call.
        let call = try CallChild(
            bridgePort: bridge.port, arguments: ["--input", "null", "--output", reply.path, "--duration", "4"])
        defer { call.signal(SIGKILL) }
        let status = await call.exitStatus(within: .seconds(30))

        #expect(status == 5, "exit status \(String(describing: status)); stderr: \(call.standardError)")
        let error = call.events.first { $0["type"] as? String == "error" }
        #expect(error?["source"] as? String == "output")
        #expect((error?["error"] as? String)?.contains("No space left on device") == true)
        let summary = try #require(call.events.last { $0["type"] as? String == "summary" })
        #expect(summary["result"] as? String == "ended")  // the call went on to its --duration
        #expect((summary["connectedSeconds"] as? Double ?? 0) >= 3.9)
        #expect((summary["outputError"] as? String)?.contains(reply.lastPathComponent) == true)
        #expect(bridge.process.isRunning)

        let check = try WAVCheck(reply)
        #expect(check.isComplete, "RIFF \(check.riffSize), data \(check.dataSize), file \(check.fileSize)")
        #expect(check.dataSize > 100_000 && check.dataSize < 204_800, "data \(check.dataSize)")
        let read = try pythonWave(reply)
        #expect(read == "\(check.dataSize / 2) 48000 1 2", "\(read)")
    }
}
