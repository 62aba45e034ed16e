// Mouth-to-ear per chirp, the echoed speech segment to score, and the summary figures.
import Foundation

enum Measurements {
    /// Milliseconds from each chirp entering the sender to it being heard, and how many chirps were not found.
    /// Our calls are tick-locked (input sample i is sent at output sample `inputStart + i`); aiortc's are timed
    /// by its own clock (sample i due at `sendStart + i / rate`) and frame arrival times.
    static func mouthToEar(_ call: ReceivedCall, file: Int, chirps: Int, detector: ChirpDetector) -> (
        [Double], missed: Int
    ) {
        let rate = Double(BenchSignals.rate)
        var latencies: [Double] = []
        var missed = 0
        if let timeline = call.timeline {
            guard let lastArrival = timeline.frames.last?[0] else { return ([], 0) }
            for loop in 0... {
                guard timeline.sendStart + Double(loop * file) / rate + 1 < lastArrival else { break }
                for index in 0..<chirps {
                    let sent =
                        timeline.sendStart
                        + Double(loop * file + BenchSignals.contentStart + index * BenchSignals.period) / rate
                    guard sent + 1 < lastArrival, let start = timeline.sample(atTime: sent) else { continue }
                    let end = timeline.sample(atTime: sent + 1) ?? call.received.count
                    if let found = detector.find(in: call.received, window: start..<end),
                        let heard = timeline.time(ofSample: found.index)
                    {
                        latencies.append((heard - sent) * 1000)
                    } else {
                        missed += 1
                    }
                }
            }
        } else if let inputStart = call.inputStart {
            for index in 0..<chirps {
                let sent = inputStart + BenchSignals.contentStart + index * BenchSignals.period
                if let found = detector.find(in: call.received, window: sent..<(sent + BenchSignals.period)) {
                    latencies.append(Double(found.index - sent) * 1000 / rate)
                } else {
                    missed += 1
                }
            }
        }
        return (latencies, missed)
    }

    /// The received audio from where the speech would be heard with no delay, speech length plus one second.
    /// aiortc: its audio placed by pts (see `ArrivalTimeline.playout`), from the first frame that arrived after
    /// the second pass of its looped file began (the first pass may start before the echo line is pulled).
    static func speechSegment(_ call: ReceivedCall, file: Int, speech: Int) -> [Int16]? {
        let audio: [Int16]
        let start: Int?
        if let timeline = call.timeline {
            guard let placed = timeline.playout(call.received) else { return nil }
            audio = placed.audio
            let due = timeline.sendStart + Double(file + BenchSignals.contentStart) / Double(BenchSignals.rate)
            start = timeline.frames.firstIndex(where: { $0[0] >= due }).map { placed.starts[$0] }
        } else {
            audio = call.received
            start = call.inputStart.map { $0 + BenchSignals.contentStart }
        }
        guard let start else { return nil }
        guard start >= 0, start < audio.count else {
            print("  speech segment: start \(start) outside the received \(audio.count) samples")
            return nil
        }
        return Array(audio[start..<min(audio.count, start + speech + BenchSignals.rate)])
    }
}

/// Median, 90th percentile and extremes of a sample.
struct Distribution {
    let values: [Double]

    var count: Int { values.count }
    var median: Double? { quantile(0.5) }
    var p90: Double? { quantile(0.9) }

    /// Linear interpolation between closest ranks.
    func quantile(_ q: Double) -> Double? {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return nil }
        let position = q * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(sorted.count - 1, lower + 1)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
    }

    var text: String {
        guard let median, let p90, let low = values.min(), let high = values.max() else { return "no samples" }
        return String(format: "median %.1f ms, p90 %.1f ms, min %.1f, max %.1f (n=%d)", median, p90, low, high, count)
    }
}
