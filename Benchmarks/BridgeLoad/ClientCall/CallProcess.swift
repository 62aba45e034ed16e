// One `polyvoice call` child process with --json: its NDJSON stats lines collected as they come.
import Foundation
import Synchronization

/// The figures of one `stats` line of `polyvoice call --json` that the long-call mode follows.
struct CallStatsLine: Sendable {
    var elapsed: Double
    var state: String
    /// Samples the call played (48 kHz): its audio clock.
    var playedSamples: Double
    /// The far end's RTP time received, seconds.
    var rtpSeconds: Double
    /// Jitter-buffer mean delay so far (ms) and the samples it is over.
    var meanDelayMs: Double
    var emittedSamples: Double
    var concealedSamples: Double
    var packetsLost: Double
    var packetsReceived: Double
}

/// `@unchecked Sendable`: `process` is used by the benchmark's task only; the output handler (another thread)
/// touches nothing but the mutexes.
final class CallProcess: @unchecked Sendable {
    struct Summary: Sendable {
        var result: String
        var exitCode: Int
    }

    let process: Process
    private let lines = Mutex<[CallStatsLine]>([])
    private let summaryLine = Mutex<Summary?>(nil)
    private let pending = Mutex<String>("")

    var pid: Int32 { process.processIdentifier }
    var stats: [CallStatsLine] { lines.withLock { $0 } }
    /// The `summary` event's `result` and `exitCode`, once it came.
    var summary: Summary? { summaryLine.withLock { $0 } }

    /// Starts `polyvoice call` with `arguments`, the token in its environment; standard error goes to `logFile`.
    init(executable: String, arguments: [String], token: String, logFile: String) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["call"] + arguments + ["--json"]
        var environment = ProcessInfo.processInfo.environment
        environment["POLYVOICE_WEBRTC_TOKEN"] = token
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: logFile)
        output.fileHandleForReading.readabilityHandler = { [self] handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            let complete: [Substring] = pending.withLock { pending in
                pending += text
                guard let last = pending.lastIndex(of: "\n") else { return [] }
                let done = pending[..<last].split(separator: "\n")
                pending = String(pending[pending.index(after: last)...])
                return done
            }
            for line in complete { take(line) }
        }
        try process.run()
    }

    private func take(_ line: Substring) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return }
        switch object["type"] as? String {
        case "stats":
            let audio = object["audio"] as? [String: Any] ?? [:]
            let playout = object["playout"] as? [String: Any] ?? [:]
            func number(_ dictionary: [String: Any], _ key: String) -> Double {
                (dictionary[key] as? NSNumber)?.doubleValue ?? 0
            }
            let stats = CallStatsLine(
                elapsed: number(object, "elapsed"), state: object["state"] as? String ?? "",
                playedSamples: number(audio, "playedSamples"), rtpSeconds: number(object, "rtpSecondsReceived"),
                meanDelayMs: number(playout, "meanDelayMs"), emittedSamples: number(playout, "emittedSamples"),
                concealedSamples: number(object, "concealedSamples"), packetsLost: number(object, "packetsLost"),
                packetsReceived: number(object, "packetsReceived"))
            lines.withLock { $0.append(stats) }
        case "summary":
            let summary = Summary(
                result: object["result"] as? String ?? "?", exitCode: (object["exitCode"] as? NSNumber)?.intValue ?? -1)
            summaryLine.withLock { $0 = summary }
        default: break
        }
    }

    func waitForExit() async {
        while process.isRunning { try? await Task.sleep(for: .milliseconds(200)) }
    }
}
