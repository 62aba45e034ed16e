// Real processes for the fault tests (issue 19): a `polyvoice bridge` that can be killed and started again
// on the same port, `polyvoice call` children whose NDJSON is read as it comes, and small checks.
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `polyvoice bridge` child on `port` (0: a free one) that can be killed with SIGKILL (no goodbye).
final class KillableBridge {
    private let bridge: BridgeProcess
    var process: Process { bridge.process }
    var port: Int { bridge.port }

    init(port: Int = 0, arguments: [String] = []) throws {
        bridge = try BridgeProcess(extraArguments: arguments, port: port)
    }

    var pid: Int32 { process.processIdentifier }

    func kill() {
        _ = Glibc.kill(pid, SIGKILL)
        process.waitUntilExit()
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// Open file descriptors of the bridge process.
    var descriptorCount: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    /// GET /metrics.
    func metrics() async throws -> String {
        let url = URL(string: "http://127.0.0.1:\(port)/metrics")!
        let (data, _) = try await URLSession(configuration: .ephemeral).data(from: url)
        return String(decoding: data, as: UTF8.self)
    }

    /// The value of `series` (`name{labels}`) in /metrics, nil when absent or unreachable.
    func metric(_ series: String) async -> Double? {
        guard let text = try? await metrics() else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }
}

/// A `polyvoice call --json` child whose stdout lines are collected as they arrive.
final class CallChild: @unchecked Sendable {
    let process = Process()
    private let lines = Locked<[String]>([])
    private let errors = Locked<String>("")
    private let done = DispatchSemaphore(value: 0)

    init(bridgePort: Int, arguments: [String]) throws {
        process.executableURL = polyvoiceBinary()
        process.arguments = ["call", "--environment", "local:\(bridgePort)", "--json"] + arguments
        process.environment = ["POLYVOICE_WEBRTC_TOKEN": BridgeProcess.token]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let lines = self.lines
        let errors = self.errors
        let done = self.done
        Thread {
            var pending = ""
            while true {
                let data = out.fileHandleForReading.availableData
                if data.isEmpty { break }
                pending += String(decoding: data, as: UTF8.self)
                while let newline = pending.firstIndex(of: "\n") {
                    let line = String(pending[..<newline])
                    pending = String(pending[pending.index(after: newline)...])
                    lines.withLock { $0.append(line) }
                }
            }
            done.signal()
        }.start()
        Thread {
            let data = err.fileHandleForReading.readDataToEndOfFile()
            errors.withLock { $0 = String(decoding: data, as: UTF8.self) }
        }.start()
    }

    var output: [String] { lines.withLock { $0 } }
    var standardError: String { errors.withLock { $0 } }

    /// The JSON objects printed so far.
    var events: [[String: Any]] {
        output.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// The `state` events' states, in order.
    var states: [String] { events.filter { $0["type"] as? String == "state" }.compactMap { $0["state"] as? String } }

    /// Waits (polling) until `condition` holds on the events, `timeout` passes or the process has exited.
    func wait(_ timeout: Duration, until condition: ([[String: Any]]) -> Bool) async -> Bool {
        let end = ContinuousClock.now + timeout
        while ContinuousClock.now < end, process.isRunning {
            if condition(events) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return condition(events)
    }

    /// The last lines of its standard error, for a failure message.
    var standardErrorTail: String { standardError.split(separator: "\n").suffix(3).joined(separator: " | ") }

    /// Waits for the process to exit (off the cooperative pool); nil on timeout (it is then killed).
    func exitStatus(within timeout: Duration) async -> Int32? {
        let process = self.process
        let done = self.done
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let finished = done.wait(timeout: .now() + Double(timeout.components.seconds)) == .success
                if !finished {
                    _ = Glibc.kill(process.processIdentifier, SIGKILL)
                    process.waitUntilExit()
                    continuation.resume(returning: nil)
                    return
                }
                process.waitUntilExit()
                continuation.resume(returning: process.terminationStatus)
            }
        }
    }

    func signal(_ number: Int32) { _ = Glibc.kill(process.processIdentifier, number) }
}

/// A shareable lock box for the reader threads.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// What a WAV file's header says and what the file holds: valid when both sizes match the file.
struct WAVCheck {
    let riffSize: UInt32
    let dataSize: UInt32
    let fileSize: Int
    var isComplete: Bool {
        Int(riffSize) == fileSize - 8 && Int(dataSize) == fileSize - 44 && dataSize % 2 == 0
    }

    init(_ url: URL) throws {
        let bytes = [UInt8](try Data(contentsOf: url))
        fileSize = bytes.count
        guard bytes.count >= 44, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46][...],
            bytes[36..<40] == [0x64, 0x61, 0x74, 0x61][...]
        else {
            riffSize = 0
            dataSize = 0
            return
        }
        func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) } }
        riffSize = u32(4)
        dataSize = u32(40)
    }
}

/// Python's `wave` module reads the file: "frames rate channels width", or the error it raised.
func pythonWave(_ url: URL) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = [
        "-c",
        "import sys, wave; w = wave.open(sys.argv[1]); "
            + "print(w.getnframes(), w.getframerate(), w.getnchannels(), w.getsampwidth()); "
            + "assert len(w.readframes(w.getnframes())) == 2 * w.getnframes()",
        url.path,
    ]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    return process.terminationStatus == 0 ? text : "error: \(text)"
}
