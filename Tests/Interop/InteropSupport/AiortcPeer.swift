// Drives Tests/Interop/aiortc_peer.py (aiortc in the project's .venv) as a child process over JSON lines.
// Blocking reads of the child's output run on a Dispatch thread, never on the concurrency pool, and every
// request has a deadline: a stuck peer fails the caller instead of hanging it.
import Foundation
import Synchronization

/// A real WebRTC peer (aiortc) in a child process, one request at a time.
///
/// Sendable: the child process and its pipes are only written from the requesting task; replies
/// cross from the reader thread through `state` (a mutex).
public final class AiortcPeer: @unchecked Sendable {
    /// The package's root directory (this file is Tests/Interop/InteropSupport/AiortcPeer.swift).
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private enum LineResult {
        case line(String)
        case timedOut
        case ended
    }

    private struct State {
        var lines: [String] = []
        var ended = false
        var waiter: (id: Int, continuation: CheckedContinuation<LineResult, Never>)?
        var nextID = 0
        /// A request timed out: its late reply would be taken for the next one's.
        var desynchronised = false
    }

    private let process = Process()
    private let input: FileHandle
    private let state = Mutex(State())
    private let reader = DispatchQueue(label: "aiortc-peer-reader")

    /// Starts the peer with the venv's Python (`.venv/bin/python`) unless another interpreter is given.
    public init(python: URL? = nil) throws(AiortcPeerError) {
        signal(SIGPIPE, SIG_IGN)  // a dead child must give write errors, not kill the test process
        let root = Self.packageRoot
        let interpreter = python ?? root.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: interpreter.path) else {
            throw .launch("no Python at \(interpreter.path) (run scripts/setup.sh)")
        }
        let toPeer = Pipe()
        let fromPeer = Pipe()
        process.executableURL = interpreter
        process.arguments = ["-u", root.appendingPathComponent("Tests/Interop/aiortc_peer.py").path]
        process.standardInput = toPeer
        process.standardOutput = fromPeer
        process.standardError = FileHandle.standardError
        do {
            try process.run()
        } catch {
            throw .launch("\(error)")
        }
        input = toPeer.fileHandleForWriting
        let output = fromPeer.fileHandleForReading
        reader.async { [self] in readLines(from: output) }
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    // MARK: Requests

    /// Sends `request` and returns the peer's reply; throws if the peer reports an error, exits or does not
    /// answer within `timeout`.
    public func send(_ request: AiortcRequest, timeout: Duration = .seconds(10)) async throws -> AiortcReply {
        guard !state.withLock({ $0.desynchronised }) else {
            throw AiortcPeerError.failed("an earlier request timed out")
        }
        var line = try JSONEncoder().encode(request)
        line.append(UInt8(ascii: "\n"))
        do {
            try input.write(contentsOf: line)
        } catch {
            throw AiortcPeerError.exited(op: request.op)
        }
        switch await nextLine(timeout: timeout) {
        case .timedOut: throw AiortcPeerError.timedOut(op: request.op, after: timeout)
        case .ended: throw AiortcPeerError.exited(op: request.op)
        case .line(let text):
            guard let reply = try? JSONDecoder().decode(AiortcReply.self, from: Data(text.utf8)) else {
                throw AiortcPeerError.malformedReply(String(text.prefix(200)))
            }
            guard reply.ok else { throw AiortcPeerError.failed(reply.error ?? "\(request.op) failed") }
            return reply
        }
    }

    /// A new connection and its offer (sendrecv audio carrying a `tone` Hz sine).
    public func offer(tone: Double) async throws -> String {
        try await sdp(of: send(AiortcRequest(op: "offer", tone: tone)))
    }

    /// A new connection answering `offer`, sending a `tone` Hz sine.
    public func answer(_ offer: String, tone: Double) async throws -> String {
        try await sdp(of: send(AiortcRequest(op: "answer", sdp: offer, tone: tone)))
    }

    /// A new connection answering `offer` that sends back what it receives (an echo callee).
    public func answerEchoing(_ offer: String) async throws -> String {
        try await sdp(of: send(AiortcRequest(op: "answer", sdp: offer, echo: true)))
    }

    /// Calls a voice bridge at `url` (127.0.0.0/8) per PROTOCOL.md §1–3: provision, connect with the
    /// peer's offer, pull the agent's line. Sends `wav` (looped) or a `tone`; returns the call id.
    public func callBridge(url: String, token: String, mode: String = "echo", tone: Double = 1_000, wav: String? = nil)
        async throws -> String
    {
        let reply = try await send(
            AiortcRequest(op: "call_bridge", tone: tone, wav: wav, url: url, token: token, mode: mode),
            timeout: .seconds(30))
        guard let callId = reply.callId else { throw AiortcPeerError.malformedReply("no call_id") }
        return callId
    }

    /// Ends the bridge call: closes the connection, then `DELETE`s the call (best effort).
    public func hangUp() async throws {
        _ = try await send(AiortcRequest(op: "hang_up"))
    }

    /// Writes everything received so far to `path` (48 kHz mono 16-bit WAV); returns the sample count.
    public func saveReceived(to path: String) async throws -> Int {
        try await send(AiortcRequest(op: "save", path: path)).samples ?? 0
    }

    /// The answer to the peer's offer.
    public func applyAnswer(_ answer: String) async throws {
        _ = try await send(AiortcRequest(op: "apply_answer", sdp: answer))
    }

    /// A re-offer (e.g. the bridge's pull) on the current connection; returns the peer's answer.
    public func applyOffer(_ offer: String) async throws -> String {
        try await sdp(of: send(AiortcRequest(op: "apply_offer", sdp: offer)))
    }

    /// Waits (inside the peer) until its connection state is `state`, failed or closed; returns the state.
    public func wait(for state: String, seconds: Double) async throws -> String {
        let reply = try await send(
            AiortcRequest(op: "wait", state: state, timeout: seconds), timeout: .seconds(seconds + 5))
        return reply.state ?? ""
    }

    /// What the peer received so far (audio measured after skipping `skip` seconds) and its states.
    public func report(skip: Double = 0.5) async throws -> AiortcReply {
        try await send(AiortcRequest(op: "report", skip: skip))
    }

    /// Closes the peer's current connection.
    public func closeConnection() async throws {
        _ = try await send(AiortcRequest(op: "close"))
    }

    /// Asks the peer to exit and waits up to 3 s for it; then kills it.
    public func quit() async {
        _ = try? await send(AiortcRequest(op: "quit"), timeout: .seconds(3))
        for _ in 0..<100 where process.isRunning {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if process.isRunning { process.terminate() }
    }

    private func sdp(of reply: AiortcReply) throws -> String {
        guard let sdp = reply.sdp else { throw AiortcPeerError.malformedReply("no sdp") }
        return sdp
    }

    // MARK: Reply lines

    private func nextLine(timeout: Duration) async -> LineResult {
        await withCheckedContinuation { (continuation: CheckedContinuation<LineResult, Never>) in
            let (ready, id) = state.withLock { state -> (LineResult?, Int) in
                if !state.lines.isEmpty { return (.line(state.lines.removeFirst()), 0) }
                if state.ended { return (.ended, 0) }
                state.nextID += 1
                state.waiter = (state.nextID, continuation)
                return (nil, state.nextID)
            }
            if let ready { return continuation.resume(returning: ready) }
            let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) * 1e-18
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
                let expired = state.withLock { state -> CheckedContinuation<LineResult, Never>? in
                    guard let waiter = state.waiter, waiter.id == id else { return nil }
                    state.waiter = nil
                    state.desynchronised = true
                    return waiter.continuation
                }
                expired?.resume(returning: .timedOut)
            }
        }
    }

    /// Runs on the reader queue until the child closes its output.
    private func readLines(from output: FileHandle) {
        var pending: [UInt8] = []
        while true {
            let chunk = output.availableData
            if chunk.isEmpty { break }
            pending.append(contentsOf: chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                deliver(.line(String(decoding: pending[..<newline], as: UTF8.self)))
                pending.removeSubrange(...newline)
            }
        }
        deliver(.ended)
    }

    private func deliver(_ result: LineResult) {
        let waiter = state.withLock { state -> CheckedContinuation<LineResult, Never>? in
            if case .ended = result { state.ended = true }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter.continuation
            }
            if case .line(let text) = result { state.lines.append(text) }
            return nil
        }
        waiter?.resume(returning: result)
    }
}
