import PolyNet
import Testing

@testable import PolyVoiceBridge

@Suite struct LoopLagMetricsTests {
    @Test func eachLoopIsAPrometheusHistogramWithCumulativeBuckets() {
        var a = EventLoopLagSnapshot()
        a.count = 4
        a.sumSeconds = 0.0035
        a.bucketCounts = [2, 1, 0, 0, 0, 0, 0, 0, 1]
        a.maxSeconds = 0.3
        let text = BridgeMetricsState.renderLoopLag([a, EventLoopLagSnapshot()])
        let lines = Set(text.split(separator: "\n").map(String.init))
        let name = "polyvoice_bridge_event_loop_lag_seconds"
        #expect(lines.contains("# TYPE \(name) histogram"))
        #expect(lines.contains("\(name)_bucket{loop=\"0\",le=\"0.001\"} 2"))
        #expect(lines.contains("\(name)_bucket{loop=\"0\",le=\"0.002\"} 3"))
        #expect(lines.contains("\(name)_bucket{loop=\"0\",le=\"0.2\"} 3"))
        #expect(lines.contains("\(name)_bucket{loop=\"0\",le=\"+Inf\"} 4"))
        #expect(lines.contains("\(name)_sum{loop=\"0\"} 0.0035"))
        #expect(lines.contains("\(name)_count{loop=\"0\"} 4"))
        #expect(lines.contains("\(name)_max{loop=\"0\"} 0.3"))
        #expect(lines.contains("\(name)_count{loop=\"1\"} 0"))
    }
}
