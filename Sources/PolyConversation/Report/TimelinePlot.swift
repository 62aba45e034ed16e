// PNG pictures of a report: a call's timeline (both waveforms, turns shaded, response latencies and yields
// labelled in ms) and a summary of the response latencies of every call (one dot per agent reply).
import Glibc

public enum TimelinePlot {
    static let caller = RGB(31, 119, 180)
    static let agent = RGB(214, 95, 14)
    static let callerShade = RGB(214, 232, 246)
    static let agentShade = RGB(252, 226, 206)
    static let ink = RGB(40, 40, 40)
    static let grid = RGB(220, 220, 220)

    /// Caller lane on top, agent (as heard) below, a second-grid, turn shading and latency labels.
    public static func timeline(_ result: CallResult, width: Int = 1600) -> PNGImage {
        let height = 300
        var image = PNGImage(width: width, height: height)
        let total = max(result.sent.count, result.heard.count, 1)
        let left = 10
        let plotWidth = width - 2 * left
        func x(_ sample: Int) -> Int { left + Int(Double(sample) / Double(total) * Double(plotWidth)) }
        let lanes = [
            (top: 30, audio: result.sent, color: caller, shade: callerShade, speaker: MeasuredTurn.Speaker.caller),
            (top: 160, audio: result.heard, color: agent, shade: agentShade, speaker: .agent),
        ]
        let laneHeight = 110
        // Seconds grid, labelled every 5 s.
        var second = 0
        while second * ConversationClock.sampleRate <= total {
            let gx = x(second * ConversationClock.sampleRate)
            image.fill(x: gx, y: 20, width: 1, height: height - 30, grid)
            if second % 5 == 0 { BitmapFont.draw("\(second)s", into: &image, x: gx + 2, y: height - 12, color: ink) }
            second += 1
        }
        for lane in lanes {
            for turn in result.metrics.turns where turn.speaker == lane.speaker {
                image.fill(
                    x: x(turn.startSample), y: lane.top, width: max(1, x(turn.endSample) - x(turn.startSample)),
                    height: laneHeight, lane.shade)
            }
            image.fill(x: left, y: lane.top + laneHeight / 2, width: plotWidth, height: 1, grid)
            drawWave(
                lane.audio, into: &image, left: left, width: plotWidth, total: total, top: lane.top, height: laneHeight,
                color: lane.color)
        }
        // Response latencies: a bar from the caller's end to the agent's start, with its value.
        for turn in result.metrics.turns where turn.speaker == .agent {
            guard let latency = turn.responseLatencyMs else { continue }
            let start = turn.startSample - ConversationClock.samples(milliseconds: latency)
            image.fill(x: x(start), y: 150, width: max(1, x(turn.startSample) - x(start)), height: 4, ink)
            BitmapFont.draw("\(Int(latency.rounded()))ms", into: &image, x: x(start), y: 141, scale: 1, color: ink)
        }
        for turn in result.metrics.turns where turn.speaker == .caller {
            guard let yieldMs = turn.yieldMs else { continue }
            BitmapFont.draw("y\(Int(yieldMs.rounded()))", into: &image, x: x(turn.startSample), y: 8, color: ink)
        }
        return image
    }

    private static func drawWave(
        _ audio: [Int16], into image: inout PNGImage, left: Int, width: Int, total: Int, top: Int, height: Int,
        color: RGB
    ) {
        guard !audio.isEmpty else { return }
        let middle = top + height / 2
        for column in 0..<width {
            let from = column * total / width
            let to = min(audio.count, (column + 1) * total / width)
            guard from < to else { continue }
            var low: Int16 = 0
            var high: Int16 = 0
            for i in from..<to {
                low = min(low, audio[i])
                high = max(high, audio[i])
            }
            let up = Int(Double(high) / 32768 * Double(height / 2))
            let down = Int(Double(low) / 32768 * Double(height / 2))
            image.fill(x: left + column, y: middle - up, width: 1, height: max(1, up - down), color)
        }
    }

    /// Every agent reply's latency as a dot, one column per call, with a ms scale: the spread across calls.
    public static func summary(_ results: [CallResult], width: Int = 800, height: Int = 400) -> PNGImage {
        var image = PNGImage(width: width, height: height)
        let latencies = results.map { $0.metrics.responseLatencies }
        let top = max(100, (latencies.flatMap { $0 }.max() ?? 1000) * 1.1)
        let left = 60
        let bottom = height - 30
        let plotHeight = bottom - 20
        func y(_ ms: Double) -> Int { bottom - Int(ms / top * Double(plotHeight)) }
        let step = niceStep(top / 5)
        var tick = 0.0
        while tick <= top {
            image.fill(x: left, y: y(tick), width: width - left - 10, height: 1, grid)
            BitmapFont.draw("\(Int(tick))", into: &image, x: 4, y: y(tick) - 5, color: ink)
            tick += step
        }
        BitmapFont.draw("ms", into: &image, x: 4, y: 4, color: ink)
        let columns = max(1, results.count)
        let columnWidth = Double(width - left - 20) / Double(columns)
        for (call, values) in latencies.enumerated() {
            let cx = left + 10 + Int((Double(call) + 0.5) * columnWidth)
            for value in values { image.fill(x: cx - 3, y: y(value) - 3, width: 7, height: 7, agent) }
        }
        for (percentile, color) in [(50.0, caller), (95.0, ink)] {
            if let value = Percentile.of(latencies.flatMap { $0 }, percentile) {
                image.fill(x: left, y: y(value), width: width - left - 10, height: 2, color)
                BitmapFont.draw(
                    "p\(Int(percentile)) \(Int(value.rounded()))", into: &image, x: width - 120, y: y(value) - 12,
                    color: color)
            }
        }
        return image
    }

    static func niceStep(_ raw: Double) -> Double {
        let magnitude = pow(10, floor(log10(max(raw, 1))))
        for factor in [1.0, 2.0, 5.0, 10.0] where magnitude * factor >= raw { return magnitude * factor }
        return magnitude * 10
    }
}
