// Replays another buffer's playout decisions (recorded offline, e.g. from aiortc or baresip's jbuf) through Opus,
// so every buffer in an evaluation is decoded by the same decoder.

/// A recorded playout: at each 20 ms slot, which packet was decoded, or PLC, or silence.
public struct PlayoutSchedule: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        case decode(packet: Int)
        case conceal
        case silence
    }

    public struct Slot: Sendable, Equatable {
        /// Playout time of the slot's first sample, in ms after the first packet's send time.
        public var playMs: Double
        public var action: Action
    }

    public var slots: [Slot]

    /// Parses CSV `play_ms,seq` where seq is a packet index, empty for PLC, or `z` for silence.
    public init(csv: String) throws(ArrivalTraceError) {
        var slots: [Slot] = []
        for (number, rawLine) in csv.split(separator: "\n").enumerated() {
            let line = rawLine.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("play_ms") { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingWhitespace()
            }
            guard fields.count == 2, let play = Double(fields[0]) else {
                throw ArrivalTraceError(line: number + 1, problem: "expected play_ms,seq")
            }
            let action: Action
            switch fields[1] {
            case "": action = .conceal
            case "z": action = .silence
            default:
                guard let index = Int(fields[1]) else {
                    throw ArrivalTraceError(line: number + 1, problem: "seq '\(fields[1])' is not a number")
                }
                action = .decode(packet: index)
            }
            slots.append(Slot(playMs: play, action: action))
        }
        self.slots = slots
    }

    /// Decodes the schedule: audio from the first send time, with statistics (delay = playout − arrival).
    public func play<Decoder: PlayoutDecoder>(
        packets: [[UInt8]], trace: ArrivalTrace, decoder: inout Decoder, durationMs: Double
    ) -> PlayoutSimulationResult {
        var output = [Int16](repeating: 0, count: Int(durationMs * 48))
        var statistics = JitterBufferStatistics()
        var frame = [Int16](repeating: 0, count: 5760)
        var concealing = false
        for slot in slots {
            let start = Int(slot.playMs * 48)
            var n = 960
            switch slot.action {
            case .decode(let index) where index >= 0 && index < packets.count:
                n =
                    (try? packets[index].withUnsafeBufferPointer { payload in
                        try frame.withUnsafeMutableBufferPointer { try decoder.decode(payload, into: $0) }
                    }) ?? 0
                if let arrival = trace.entries[index].arrivalMs {
                    statistics.jitterBufferDelay += (slot.playMs + 10 - arrival) / 1000 * Double(n)
                }
                statistics.jitterBufferEmittedCount += UInt64(n)
                concealing = false
            case .silence:
                for i in 0..<n { frame[i] = 0 }
                countConcealment(&statistics, &concealing, n, silent: true)
            default:
                _ = try? frame.withUnsafeMutableBufferPointer {
                    try decoder.conceal(into: UnsafeMutableBufferPointer(rebasing: $0[0..<960]))
                }
                countConcealment(&statistics, &concealing, n, silent: false)
            }
            for i in 0..<n where start + i >= 0 && start + i < output.count { output[start + i] = frame[i] }
            statistics.totalSamplesReceived += UInt64(n)
        }
        return PlayoutSimulationResult(output: output, statistics: statistics, timeline: [])
    }

    private func countConcealment(
        _ statistics: inout JitterBufferStatistics, _ concealing: inout Bool, _ n: Int, silent: Bool
    ) {
        if !concealing { statistics.concealmentEvents += 1 }
        concealing = true
        statistics.concealedSamples += UInt64(n)
        if silent { statistics.silentConcealedSamples += UInt64(n) }
    }
}
