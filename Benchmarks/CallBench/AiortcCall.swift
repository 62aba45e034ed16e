// One call of aiortc (Tests/Interop/aiortc_peer.py) to the same bridge: it sends a BenchSignals file
// (looped, paced by its own clock) and reports what it received with each frame's arrival time.
import Foundation
import InteropSupport
import PolyAudio

/// Received sample index ↔ arrival time (monotonic seconds) from aiortc's per-frame arrival records.
struct ArrivalTimeline: Decodable {
    /// Monotonic seconds at which the source's sample 0 was due (sample i is due i / 48000 s later).
    let sendStart: Double
    /// [arrival seconds, index of the frame's first sample in the received audio].
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
