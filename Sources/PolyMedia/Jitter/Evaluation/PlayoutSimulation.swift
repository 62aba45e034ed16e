// Trace-driven playout in virtual time: encode speech, deliver packets at their trace arrival times, pull 10 ms frames.
import PolyAudio
import PolyCore

/// One 10 ms step of a simulation, for plots.
public struct PlayoutTimelinePoint: Sendable {
    public var timeMs: Double
    public var targetDelayMs: Double
    public var levelMs: Double
    public var operation: PlayoutOperation
    /// What the adaptive buffer's target was made of (nil for other buffers).
    public var targetParts: TargetDelayParts?
}

/// The result of playing a trace through a buffer.
public struct PlayoutSimulationResult: Sendable {
    /// Audio as played out, 48 kHz mono, starting at the first packet's send time.
    public var output: [Int16]
    public var statistics: JitterBufferStatistics
    public var timeline: [PlayoutTimelinePoint]
}

/// Plays a trace of encoded packets through a `PlayoutBuffer` in virtual time.
public enum PlayoutSimulation {
    /// Encodes 48 kHz mono `speech` into 20 ms Opus packets (32 kbps, in-band FEC, loss hint `lossPercent`).
    public static func encode(_ speech: [Int16], lossPercent: Int) throws(OpusError) -> [[UInt8]] {
        let settings = OpusEncoderSettings(
            bitrate: 32000, inbandFEC: true, packetLossPercent: max(0, min(lossPercent, 30)))
        let encoder = try OpusEncoder(settings)
        var packets: [[UInt8]] = []
        var start = 0
        while start < speech.count {
            var frame = Array(speech[start..<min(start + 960, speech.count)])
            frame += [Int16](repeating: 0, count: 960 - frame.count)
            packets.append(try encoder.encode(frame))
            start += 960
        }
        return packets
    }

    /// Delivers `packets[i]` at `trace.entries[i].arrivalMs` and pulls 10 ms frames from the first send time
    /// until every packet was delivered and played (the output is padded with silence to `durationMs`).
    public static func run<Buffer: PlayoutBuffer>(
        packets: [[UInt8]], trace: ArrivalTrace, buffer: inout Buffer, durationMs: Double
    ) -> PlayoutSimulationResult {
        let count = min(packets.count, trace.entries.count)
        let start = trace.entries.first?.sendMs ?? 0
        let arrivals = (0..<count).compactMap { i in trace.entries[i].arrivalMs.map { (i, $0) } }
            .sorted { ($0.1, $0.0) < ($1.1, $1.0) }
        var next = 0
        var output: [Int16] = []
        var timeline: [PlayoutTimelinePoint] = []
        var frame = [Int16](repeating: 0, count: 480)
        var pull = 0
        while Double(pull) * 10 < durationMs {
            let nowMs = start + Double(pull) * 10
            while next < arrivals.count, arrivals[next].1 <= nowMs {
                let (i, arrivalMs) = arrivals[next]
                let arrival = Instant(nanoseconds: Int64(arrivalMs * 1e6))
                let packet = JitterPacket(
                    sequence: UInt16(truncatingIfNeeded: trace.entries[i].sequence),
                    timestamp: UInt32(truncatingIfNeeded: i * 960), ssrc: 0x5eed, marker: i == 0,
                    payload: packets[i], arrival: arrival)
                buffer.insert(packet, at: arrival)
                next += 1
            }
            let now = Instant(nanoseconds: Int64(nowMs * 1e6))
            let operation = frame.withUnsafeMutableBufferPointer { buffer.pull(at: now, into: $0) }
            output += frame
            timeline.append(
                PlayoutTimelinePoint(
                    timeMs: nowMs - start, targetDelayMs: buffer.targetDelay.inMilliseconds,
                    levelMs: buffer.currentLevel.inMilliseconds, operation: operation,
                    targetParts: buffer.adaptiveTargetParts))
            pull += 1
            // Stop once everything was delivered and played, so the stream's end is not counted as loss.
            if next == arrivals.count, buffer.currentLevel < .milliseconds(10) { break }
        }
        output += [Int16](repeating: 0, count: max(0, Int(durationMs * 48) - output.count))
        return PlayoutSimulationResult(output: output, statistics: buffer.statistics, timeline: timeline)
    }
}
