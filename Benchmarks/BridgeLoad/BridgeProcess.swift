// The bridge under test as a child process (`polyvoice bridge`), so its CPU is measured apart from the
// load generator's, plus a scraper of its Prometheus /metrics.
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A running `polyvoice bridge --agent echo` on 127.0.0.1 with a free port.
final class BridgeProcess {
    let process = Process()
    let port: Int
    var pid: Int32 { process.processIdentifier }

    /// Starts the bridge at `executable` and waits (up to 10 s) for its "listening on" line. `agentProfile`
    /// is passed as `--agent-profile` (nil: the bridge's default).
    init(executable: String, token: String, logFile: String, agentProfile: String? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        // Limits out of the way: admission (--max-calls), per-client rate (all calls come from 127.0.0.1),
        // and no events-socket resume grace needed: each call keeps its events socket open anyway.
        process.arguments = [
            "bridge", "--host", "127.0.0.1", "--port", "0", "--agent", "echo", "--max-calls", "100000",
            "--rate", "100000", "--media-timeout", "60", "--resume-grace", "3600",
        ]
        if let agentProfile { process.arguments! += ["--agent-profile", agentProfile] }
        var environment = ProcessInfo.processInfo.environment
        environment["POLYVOICE_BRIDGE_TOKEN"] = token
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: logFile)
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(10)
        var port: Int?
        while port == nil, Date() < deadline, process.isRunning {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
            if let range = text.range(of: #"127\.0\.0\.1:(\d+)/"#, options: .regularExpression) {
                port = Int(text[range].dropFirst(10).dropLast())
            }
        }
        guard let port else {
            process.terminate()
            throw BenchError("the bridge did not start (output: \(text.prefix(300)); log \(logFile))")
        }
        self.port = port
    }

    /// SIGTERM (the bridge ends all calls) and wait.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

/// The packet counters of the bridge's /metrics.
struct BridgeCounters {
    var activeCalls = 0.0
    var received = 0.0
    var sent = 0.0
    var lost = 0.0
    var concealedSeconds = 0.0

    static func fetch(port: Int) async throws -> BridgeCounters {
        let url = URL(string: "http://127.0.0.1:\(port)/metrics")!
        let (data, _) = try await URLSession.shared.data(from: url)
        var counters = BridgeCounters()
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let value = Double(parts[1]) else { continue }
            switch parts[0] {
            case "polyvoice_bridge_active_calls": counters.activeCalls = value
            case "polyvoice_bridge_rtp_packets_received_total": counters.received = value
            case "polyvoice_bridge_rtp_packets_sent_total": counters.sent = value
            case "polyvoice_bridge_rtp_packets_lost_total": counters.lost = value
            case "polyvoice_bridge_concealed_seconds_total": counters.concealedSeconds = value
            default: break
            }
        }
        return counters
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
