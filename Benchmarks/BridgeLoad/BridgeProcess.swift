// The bridge under test as a child process (`polyvoice bridge`), so its CPU is measured apart from the
// load generator's, plus a scraper of its Prometheus /metrics.
import Foundation
import PolyNet

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
    /// Ended calls by outcome (`hangup`, `media_timeout`, …).
    var callsEnded: [String: Double] = [:]
    /// The bridge's event loops' frame-clock lag, summed over its loops.
    var lag = EventLoopLagSnapshot()

    static func fetch(port: Int) async throws -> BridgeCounters {
        let url = URL(string: "http://127.0.0.1:\(port)/metrics")!
        let (data, _) = try await URLSession.shared.data(from: url)
        var counters = BridgeCounters()
        var cumulativeLag: [String: [Double]] = [:]  // per loop label, the cumulative buckets in order
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let value = Double(parts[1]) else { continue }
            let (name, labels) = Self.split(parts[0])
            switch name {
            case "polyvoice_bridge_calls_total": counters.callsEnded[labels["outcome"] ?? "", default: 0] += value
            case "polyvoice_bridge_event_loop_lag_seconds_bucket":
                cumulativeLag[labels["loop"] ?? "", default: []].append(value)
            case "polyvoice_bridge_event_loop_lag_seconds_sum": counters.lag.sumSeconds += value
            case "polyvoice_bridge_event_loop_lag_seconds_count": counters.lag.count += UInt64(value)
            case "polyvoice_bridge_event_loop_lag_seconds_max":
                counters.lag.maxSeconds = max(counters.lag.maxSeconds, value)
            default: break
            }
            switch parts[0] {
            case "polyvoice_bridge_active_calls": counters.activeCalls = value
            case "polyvoice_bridge_rtp_packets_received_total": counters.received = value
            case "polyvoice_bridge_rtp_packets_sent_total": counters.sent = value
            case "polyvoice_bridge_rtp_packets_lost_total": counters.lost = value
            case "polyvoice_bridge_concealed_seconds_total": counters.concealedSeconds = value
            default: break
            }
        }
        // Cumulative buckets (le order, +Inf last) back to counts per bucket, summed over the loops.
        for buckets in cumulativeLag.values where buckets.count == counters.lag.bucketCounts.count {
            for index in buckets.indices {
                counters.lag.bucketCounts[index] += UInt64(buckets[index] - (index > 0 ? buckets[index - 1] : 0))
            }
        }
        return counters
    }

    /// `name{a="x",b="y"}` → the name and its labels (no escapes: the bridge's label values have none).
    private static func split(_ sample: Substring) -> (String, [String: String]) {
        guard let open = sample.firstIndex(of: "{"), sample.last == "}" else { return (String(sample), [:]) }
        var labels: [String: String] = [:]
        for pair in sample[sample.index(after: open)..<sample.index(before: sample.endIndex)].split(separator: ",") {
            let keyValue = pair.split(separator: "=", maxSplits: 1)
            guard keyValue.count == 2 else { continue }
            labels[String(keyValue[0])] = String(keyValue[1].dropFirst().dropLast())
        }
        return (String(sample[..<open]), labels)
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
