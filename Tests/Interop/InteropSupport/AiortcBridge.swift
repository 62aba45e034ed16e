// Runs Tests/Interop/aiortc_bridge.py (a PROTOCOL.md voice bridge whose media side is aiortc, echoing the
// caller) as a child process on 127.0.0.1, for interop tests of a full PolyCall.
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A voice bridge with aiortc as the callee; `stop()` (or deinit) ends it.
public final class AiortcBridge: @unchecked Sendable {
    /// What `GET /debug/calls` reports.
    public struct Calls: Decodable, Sendable, Equatable {
        public var active: Int
        public var deleted: Int
        public var connected: Int
        public var receivedSamples: Int
        public var pulled: Int

        enum CodingKeys: String, CodingKey {
            case active, deleted, connected, pulled
            case receivedSamples = "received_samples"
        }
    }

    public let port: Int
    private let process: Process
    private let input: Pipe

    /// Starts the bridge with the venv's Python and waits up to `timeout` for the port it listens on.
    /// `token`: the only web calling token accepted (any non-empty one when nil). `pull`: the agent's echo
    /// comes on a pulled m-line (PROTOCOL.md §3), else on the caller's own line.
    public init(token: String? = nil, pull: Bool = true, timeout: TimeInterval = 15) throws(AiortcPeerError) {
        signal(SIGPIPE, SIG_IGN)
        let root = AiortcPeer.packageRoot
        let interpreter = root.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: interpreter.path) else {
            throw .launch("no Python at \(interpreter.path) (run scripts/setup.sh)")
        }
        var arguments = ["-u", root.appendingPathComponent("Tests/Interop/aiortc_bridge.py").path]
        if let token { arguments += ["--token", token] }
        if !pull { arguments.append("--no-pull") }
        let process = Process()
        let input = Pipe()
        let output = Pipe()
        process.executableURL = interpreter
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        do {
            try process.run()
        } catch {
            throw .launch("\(error)")
        }
        // The first line is {"port": N}; read it on a thread of its own with a deadline.
        final class FirstLine: @unchecked Sendable { var text: String? }  // written before `done` signals
        let first = FirstLine()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var line: [UInt8] = []
            while true {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                line.append(contentsOf: chunk)
                if line.contains(UInt8(ascii: "\n")) { break }
            }
            first.text = String(decoding: line, as: UTF8.self)
            done.signal()
        }
        struct Started: Decodable { var port: Int }
        guard done.wait(timeout: .now() + timeout) == .success,
            let line = first.text,
            let started = try? JSONDecoder().decode(Started.self, from: Data(line.utf8))
        else {
            process.terminate()
            throw .launch("aiortc_bridge.py did not report its port within \(timeout) s")
        }
        self.process = process
        self.input = input
        port = started.port
    }

    deinit { stop() }

    /// The bridge's base URL.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    /// The bridge's view of its calls.
    public func calls() async throws -> Calls {
        let (data, _) = try await URLSession.shared.data(from: url.appendingPathComponent("debug/calls"))
        return try JSONDecoder().decode(Calls.self, from: data)
    }

    /// Ends the bridge (its calls are closed) and waits up to 3 s for it to exit.
    public func stop() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.close()
        process.terminate()
        for _ in 0..<150 where process.isRunning { usleep(20_000) }
    }
}
