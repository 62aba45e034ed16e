// Starts calls in batches for the ramp.
import Foundation
import PolyAudio
import PolyNet
import PolySession

/// What every call of the run shares.
struct LoadGenerator: Sendable {
    var baseURL: URL
    var token: String
    var codec: CodecSettings
    /// The client endpoints' settings besides the codec: encoder complexity (live encoding only).
    var encoderComplexity: Int
    /// Whether the calls' playout may time-stretch (off by default: the pitch search is the costliest step).
    var timeStretch: Bool
    /// Call `index`'s input (the looped file or tone, encoded once or live).
    var makeSource: @Sendable (_ index: Int) -> any AudioFrameSource
    var loops: [EventLoop]
    /// Call 0 keeps its received audio (for `--output`).
    var keepFirst: Bool

    /// Starts calls `first..<count`, at most 16 setting up at once; returns those started and how many failed.
    func rampUp(from first: Int, to count: Int) async -> (started: [LoadCall], failed: Int) {
        var started: [LoadCall] = []
        var failed = 0
        await withTaskGroup(of: LoadCall?.self) { group in
            var next = first
            while next < count || !group.isEmpty {
                while next < count, next < first + 16 + started.count + failed {
                    let index = next
                    next += 1
                    group.addTask { await startCall(index) }
                }
                guard let call = await group.next() else { break }
                if let call { started.append(call) } else { failed += 1 }
            }
        }
        return (started, failed)
    }

    private func startCall(_ index: Int) async -> LoadCall? {
        do {
            return try await LoadCall.start(
                baseURL: baseURL, token: token, codec: codec, encoderComplexity: encoderComplexity,
                timeStretch: timeStretch, source: makeSource(index), index: index,
                loop: loops[index % loops.count], keep: keepFirst && index == 0)
        } catch {
            print("  call \(index) failed: \(error)")
            return nil
        }
    }
}
