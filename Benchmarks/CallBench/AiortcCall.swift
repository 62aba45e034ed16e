// One call of aiortc (Tests/Interop/aiortc_peer.py) to the same bridge: it sends a BenchSignals file
// (looped, paced by its own clock) and reports what it received with each frame's arrival time.
import Foundation
import InteropSupport
import PolyAudio

/// Received sample index ↔ arrival time (monotonic seconds) from aiortc's per-frame arrival records.
struct ArrivalTimeline: Decodable {
    /// Monotonic seconds at which the source's sample 0 was due (sample i is due i / 48000 s later).
    let sendStart: Double
    /// [arrival seconds, index of the frame's first sample in the received audio, its pts in samples (-1: none)].
    let frames: [[Double]]
    let setupSeconds: Double?

    enum CodingKeys: String, CodingKey {
        case sendStart = "send_start"
        case frames
        case setupSeconds = "setup_s"
    }

    /// When received sample `index` was heard: its frame's arrival plus its offset in the frame.
    func time(ofSample index: Int) -> Double? {
        guard let frame = frames.last(where: { Int($0[1]) <= index }) else { return nil }
        return frame[0] + Double(index - Int(frame[1])) / Double(BenchSignals.rate)
    }

    /// The received audio placed by pts, as a player with a fixed delay would play it: a lost packet (aiortc
    /// delivers nothing for it) leaves silence instead of pulling the rest earlier. Returns the placed audio and
    /// the placed index of each frame's first sample; nil without usable pts.
    func playout(_ received: [Int16]) -> (audio: [Int16], starts: [Int])? {
        guard let first = frames.first?[2], first >= 0 else { return nil }
        let starts = frames.map { Int($0[2] - first) }
        guard let last = starts.max(), starts.allSatisfy({ $0 >= 0 }), last < 600 * BenchSignals.rate else {
            return nil
        }
        var audio = [Int16](repeating: 0, count: last + BenchSignals.frame)
        for (index, frame) in frames.enumerated() {
            // The arrival log may name samples the WAV does not hold (aiortc stopped mid-frame): stay inside it.
            let from = max(0, min(Int(frame[1]), received.count))
            let to = min(received.count, index + 1 < frames.count ? Int(frames[index + 1][1]) : received.count)
            for offset in 0..<max(0, min(to - from, audio.count - starts[index])) {
                audio[starts[index] + offset] = received[from + offset]
            }
        }
        return (audio, starts)
    }

    /// The first received sample that arrived at or after `time`.
    func sample(atTime time: Double) -> Int? {
        frames.first(where: { $0[0] >= time }).map { Int($0[1]) }
    }
}

enum AiortcCall {
    /// aiortc calls the bridge, sends `input` for `duration`, then hangs up; keeps `<name>.wav` (received) and
    /// `<name>.json` (arrival times) in `scratch`.
    static func run(
        peer: AiortcPeer, bridgePort: Int, token: String, input: URL, duration: Duration, scratch: URL, name: String
    ) async throws -> ReceivedCall {
        _ = try await peer.callBridge(
            url: "http://127.0.0.1:\(bridgePort)/", token: token, mode: "voice-agent", wav: input.path)
        try await Task.sleep(for: duration)
        let audio = scratch.appendingPathComponent("\(name).wav")
        let timing = scratch.appendingPathComponent("\(name).json")
        _ = try await peer.saveReceived(to: audio.path)
        _ = try await peer.send(AiortcRequest(op: "timing", path: timing.path))
        try await peer.hangUp()
        let timeline = try JSONDecoder().decode(ArrivalTimeline.self, from: Data(contentsOf: timing))
        return ReceivedCall(
            setupMilliseconds: timeline.setupSeconds.map { $0 * 1000 },
            received: try WAVFile.readPipelineSamples(from: audio), inputStart: nil, timeline: timeline)
    }
}
