// The live status line of `polyvoice call` on a real terminal: run in a tmux pane against
// `polyvoice bridge` on 127.0.0.1, read the pane, press Ctrl-C.
import Foundation
import Testing

/// A tmux server of its own (private socket), so tests never touch a user's sessions.
final class TmuxSession {
    let socket = "polyvoice-test-\(UUID().uuidString.prefix(8))"
    let name = "call"

    /// Starts `command` in a detached 100×30 pane with `environment` added; when the command exits the
    /// pane shows `EXIT=<status>` and stays open.
    init(command: [String], environment: [String: String]) throws {
        var arguments = ["new-session", "-d", "-s", name, "-x", "100", "-y", "30"]
        for (key, value) in environment.sorted(by: { $0.key < $1.key }) { arguments += ["-e", "\(key)=\(value)"] }
        arguments.append(command.map(Self.quoted).joined(separator: " ") + "; echo EXIT=$?; sleep 120")
        let started = try run(arguments, capturing: false)
        guard started.status == 0 else { throw TmuxError(output: "tmux new-session exited \(started.status)") }
    }

    /// The pane's visible text.
    func capture() throws -> String { try run(["capture-pane", "-p", "-t", name]).output }

    /// The pane's text, or what went wrong reading it (for failure messages).
    var screen: String { (try? capture()) ?? "(tmux capture failed)" }

    func sendKeys(_ keys: String) throws { _ = try run(["send-keys", "-t", name, keys]) }

    func kill() { _ = try? run(["kill-server"]) }

    /// Runs tmux (UTF-8 forced, so the level meters show) on this session's socket through `system`,
    /// which waits for the client itself: Foundation's `Process` left the client that starts the
    /// server unreaped here (its wait never returned). Output goes through a temporary file.
    @discardableResult
    private func run(_ arguments: [String], capturing: Bool = true) throws -> (status: Int32, output: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pv-tmux-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let words = ["/usr/bin/tmux", "-u", "-L", socket, "-f", "/dev/null"] + arguments
        let target = capturing ? Self.quoted(file.path) : "/dev/null"
        let status = system(words.map(Self.quoted).joined(separator: " ") + " </dev/null >\(target) 2>&1")
        let output = capturing ? (try? String(contentsOf: file, encoding: .utf8)) ?? "" : ""
        return (status, output)
    }

    /// One shell word.
    static func quoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Captures the pane every 100 ms until `predicate` holds (returns that capture) or `timeout` passes.
    func waitFor(timeout: Duration, _ predicate: (String) -> Bool) async throws -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let text = try capture()
            if predicate(text) { return text }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }
}

struct TmuxError: Error { let output: String }

@Suite("polyvoice call status line under tmux", .serialized)
struct CallStatusTmuxTests {
    /// The status line of a connected call: "MM:SS  connected  mic ▮…  spk ▮…  [rtt N ms]  jitter …  loss …  MOS …".
    static var statusLine: Regex<(Substring, Substring, Substring?)> {
        /(\d\d:\d\d)  connected  mic [▮▯]{8}  spk [▮▯]{8}  (rtt \d+ ms  )?jitter [\d.]+ ms  loss [\d.]+%/
    }

    /// The latest connected status line on the pane (its elapsed time and whole text).
    static func status(in pane: String) -> (elapsed: String, line: String)? {
        for line in pane.split(separator: "\n").reversed() {
            if let match = line.firstMatch(of: statusLine) { return (String(match.1), String(line)) }
        }
        return nil
    }

    @Test func statusLineUpdatesAndCtrlCHangsUpCleanly() async throws {
        let bridge = try BridgeProcess()
        defer { bridge.stop() }
        let tmux = try TmuxSession(
            command: [
                polyvoiceBinary().path, "call", "--environment", "local:\(bridge.port)", "--input", "null",
                "--output", "null",
            ],
            environment: ["POLYVOICE_WEBRTC_TOKEN": BridgeProcess.token, "LANG": "C.UTF-8", "TERM": "xterm-256color"])
        defer { tmux.kill() }

        // A status line of a connected call appears…
        let first = try await tmux.waitFor(timeout: .seconds(60)) { Self.status(in: $0) != nil }
        let firstStatus = try #require(first.flatMap(Self.status(in:)), "no status line: \(tmux.screen)")
        // …and is rewritten in place with a later elapsed time (one live line, not a scrolling log).
        let later = try await tmux.waitFor(timeout: .seconds(30)) {
            guard let status = Self.status(in: $0) else { return false }
            return status.elapsed != firstStatus.elapsed
        }
        let laterPane = try #require(later, "elapsed stayed \(firstStatus.elapsed): \(tmux.screen)")
        let laterStatus = try #require(Self.status(in: laterPane))
        #expect(laterStatus.elapsed > firstStatus.elapsed)
        #expect(laterStatus.line.contains("MOS "), "\(laterStatus.line)")
        #expect(laterPane.components(separatedBy: "connected  mic").count == 2, "status lines scrolled: \(laterPane)")
        #expect(!laterPane.contains(BridgeProcess.token))

        // With null input the constant-level warning comes after ~10 s and joins the status line, which
        // then no longer fits 100 columns: it is cut, so it still rewrites itself instead of wrapping.
        let warned = try await tmux.waitFor(timeout: .seconds(60)) {
            $0.contains("warning: constant microphone level") && Self.status(in: $0) != nil
        }
        let warnedStatus = try #require(warned.flatMap(Self.status(in:)), "no warning: \(tmux.screen)")
        let afterWarning = try await tmux.waitFor(timeout: .seconds(30)) {
            guard let status = Self.status(in: $0) else { return false }
            return status.elapsed > warnedStatus.elapsed && status.line.contains("⚠")
        }
        let warningPane = try #require(afterWarning, "no status with the warning: \(tmux.screen)")
        #expect(warningPane.components(separatedBy: "connected  mic").count == 2, "status line wrapped: \(warningPane)")
        #expect(Self.status(in: warningPane).map { $0.line.count < 100 } == true, "\(warningPane)")

        // Ctrl-C hangs up: a clean end, a summary, exit status 0.
        try tmux.sendKeys("C-c")
        let ended = try await tmux.waitFor(timeout: .seconds(15)) { $0.contains("EXIT=") }
        let pane = try #require(ended, "no exit after Ctrl-C: \(tmux.screen)")
        #expect(pane.contains("Hanging up"))
        #expect(pane.contains("Call ended after"))
        #expect(pane.contains("EXIT=0"), "\(pane)")
    }
}
