// A scripted caller as the call's own audio source and sink (`AudioInput.frames`, `AudioOutput.frames`):
// the call's 20 ms tick reads the caller's next frame, then writes the frame the caller hears, on the loop
// thread. Each heard frame goes straight to the script, which makes the frame it sends `lead` frames later.
// No task, stream or copy between the call and the script: a hundred calls cost their media and no more.
import PolyVoice
import Synchronization

/// What the script did and recorded, once the call is over.
struct ScriptOutcome: Sendable {
    var script: ConversationScript
    /// What the caller sent and heard from t = 0, the same length.
    var sent: [Int16]
    var heard: [Int16]
    /// The most caller audio a tick found missing (sent as silence instead): timings after it are late.
    var underrunSamples: Int
}

final class ScriptAudio: AudioFrameSource, AudioFrameSink {
    private struct State {
        var script: ConversationScript
        /// Every frame produced, in order; `readIndex` is where the call's next read starts.
        var sent: [Int16] = []
        var readIndex = 0
        /// Every sample heard from t = 0 (the first read); `fedIndex` is where the script's next frame starts.
        var heard: [Int16] = []
        var fedIndex = 0
        var underrun = 0
        var started = false
        var finished = false
        var closed = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    let name = "script"
    private let state: Mutex<State>
    private let done = Atomic<Bool>(false)
    private let onDTMF: @Sendable (DTMFRequest) -> Void
    private static let size = AudioFrameFormat.samplesPerFrame

    /// - Parameters:
    ///   - lead: frames the caller sends ahead of what it has heard (made before the call starts).
    ///   - reserveSeconds: recording space reserved up front, so ticks do not reallocate in a usual call.
    ///   - onDTMF: sends a DTMF step's digits (from the loop thread; it must not block).
    init(
        script: ConversationScript, lead: Int, reserveSeconds: Int = 60,
        onDTMF: @escaping @Sendable (DTMFRequest) -> Void
    ) {
        var state = State(script: script)
        state.sent.reserveCapacity(AudioFrameFormat.sampleRate * reserveSeconds)
        state.heard.reserveCapacity(AudioFrameFormat.sampleRate * reserveSeconds)
        for _ in 0..<lead { Self.produce(&state) }
        self.state = Mutex(state)
        self.onDTMF = onDTMF
    }

    /// The script has run to its end, or the call closed its audio (the call is over).
    var isDone: Bool { done.load(ordering: .acquiring) }

    /// The script ran to its end (the caller hung up).
    var scriptFinished: Bool { state.withLock { $0.finished } }

    var endOfStream: Bool { scriptFinished }

    /// The caller's next frame: what the script made `lead` frames ago. The first read is t = 0.
    func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        state.withLock { state in
            state.started = true
            guard !state.finished, !state.closed else {
                buffer.update(repeating: 0)
                return 0
            }
            let available = max(0, min(buffer.count, state.sent.count - state.readIndex))
            state.sent.withUnsafeBufferPointer { sent in
                for k in 0..<available { buffer[k] = sent[state.readIndex + k] }
            }
            if available < buffer.count {
                UnsafeMutableBufferPointer(rebasing: buffer[available...]).update(repeating: 0)
                state.underrun = max(state.underrun, buffer.count - available)
                // Silence went out instead: it is what was sent, and later frames keep their sample index.
                state.sent.append(contentsOf: repeatElement(0, count: buffer.count - available))
            }
            state.readIndex += buffer.count
            return buffer.count
        }
    }

    /// The frame the caller heard on this tick (after this tick's read); before t = 0 it is dropped.
    func write(_ samples: UnsafeBufferPointer<Int16>) {
        let (requests, finishedNow) = state.withLock { state -> ([DTMFRequest], Bool) in
            guard state.started, !state.finished, !state.closed else { return ([], false) }
            state.heard.append(contentsOf: samples)
            var requests: [DTMFRequest] = []
            while state.heard.count - state.fedIndex >= Self.size {
                let index = state.fedIndex
                state.fedIndex += Self.size
                state.heard.withUnsafeBufferPointer { heard in
                    state.script.heard(UnsafeBufferPointer(rebasing: heard[index..<index + Self.size]), at: index)
                }
                if state.script.isFinished {
                    // What follows is the hang-up: nothing more is sent or heard.
                    state.heard.removeLast(state.heard.count - state.fedIndex)
                    state.finished = true
                    return (requests, true)
                }
                Self.produce(&state)
                while let request = state.script.takeDTMFRequest() { requests.append(request) }
            }
            return (requests, false)
        }
        for request in requests { onDTMF(request) }
        if finishedNow { signalDone() }
    }

    /// The call ends its audio: no more ticks.
    func close() {
        state.withLock { $0.closed = true }
        signalDone()
    }

    /// Returns when the script finished or the call closed its audio.
    func waitUntilDone() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                guard !done.load(ordering: .acquiring) else { return true }
                state.waiter = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// What was sent and heard, and the script, as they are now (after the call: final).
    func outcome() -> ScriptOutcome {
        state.withLock { state in
            let length = state.fedIndex
            return ScriptOutcome(
                script: state.script, sent: Array(state.sent.prefix(length)), heard: Array(state.heard.prefix(length)),
                underrunSamples: state.underrun)
        }
    }

    private func signalDone() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !done.exchange(true, ordering: .acquiringAndReleasing) else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    private static func produce(_ state: inout State) {
        let index = state.sent.count
        state.sent.append(contentsOf: repeatElement(0, count: size))
        state.sent.withUnsafeMutableBufferPointer { sent in
            state.script.produce(into: UnsafeMutableBufferPointer(rebasing: sent[index..<index + size]), at: index)
        }
    }
}
