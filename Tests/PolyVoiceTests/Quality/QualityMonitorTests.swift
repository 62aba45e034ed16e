// E-model MOS estimates and the warnings' 3-of-5 rule, hysteresis and constant-level detection.
import Testing

@testable import PolyVoice

@Suite("Quality monitor")
struct QualityMonitorTests {
    func sample(
        rtt: Int? = 80, jitter: Int = 5, loss: Double = 0, level: Double? = nil
    ) -> QualitySample {
        QualitySample(
            rtt: rtt.map { .milliseconds($0) }, jitter: .milliseconds(jitter), lossFraction: loss, inputLevelDBFS: level
        )
    }

    @Test("MOS matches the E-model worked by hand (RTT 100 ms, jitter 10 ms, 1 % loss → 4.117)")
    func mosWorkedExample() {
        // d = 50 + 20 + 26.5 = 96.5 ms → Id = 2.316; Ie,eff = 4 + 91·1/21 = 8.333; R = 82.551.
        let mos = QualityMonitor.mosEstimate(rtt: .milliseconds(100), jitter: .milliseconds(10), loss: 0.01)
        #expect(abs(mos - 4.117) < 0.005)
        // 10 % loss: Ie,eff = 4 + 91·10/30 = 34.333; R = 56.551 → MOS 2.920.
        let lossy = QualityMonitor.mosEstimate(rtt: .milliseconds(100), jitter: .milliseconds(10), loss: 0.10)
        #expect(abs(lossy - 2.920) < 0.005)
    }

    @Test("MOS falls as RTT, jitter and loss grow, and stays within 1…4.5")
    func mosMonotonic() {
        var previous = 5.0
        for rtt in stride(from: 0, through: 1400, by: 100) {
            let mos = QualityMonitor.mosEstimate(rtt: .milliseconds(rtt), jitter: .milliseconds(5), loss: 0)
            #expect(mos < previous)
            #expect((1...4.5).contains(mos))
            previous = mos
        }
        let clean = QualityMonitor.mosEstimate(rtt: .milliseconds(40), jitter: .milliseconds(2), loss: 0)
        #expect(clean > 4.2)
        let jittery = QualityMonitor.mosEstimate(rtt: .milliseconds(40), jitter: .milliseconds(80), loss: 0)
        #expect(jittery < clean)
        let terrible = QualityMonitor.mosEstimate(rtt: .seconds(3), jitter: .milliseconds(200), loss: 0.5)
        #expect(terrible == 1)
    }

    @Test("High RTT: raised on the third bad sample of five, cleared when at most one is bad")
    func rttThreeOfFive() {
        var monitor = QualityMonitor()
        let pattern = [500, 80, 500, 80, 80]  // 2 of 5: nothing.
        for rtt in pattern { #expect(monitor.add(sample(rtt: rtt)).isEmpty) }
        #expect(monitor.add(sample(rtt: 500)).isEmpty)  // window 500,80,80,80,500 → 2 bad
        #expect(monitor.add(sample(rtt: 450)) == [.raised(.highRTT)])  // 80,80,500,500,450 → 3 bad
        #expect(monitor.active == [.highRTT])
        // Hysteresis: two bad samples in the window keep it raised.
        #expect(monitor.add(sample(rtt: 80)).isEmpty)  // 80,500,500,450,80
        #expect(monitor.add(sample(rtt: 80)).isEmpty)  // 500,500,450,80,80
        #expect(monitor.add(sample(rtt: 80)).isEmpty)  // 500,450,80,80,80 → 2 bad
        #expect(monitor.add(sample(rtt: 80)) == [.cleared(.highRTT)])  // 450,80,80,80,80 → 1 bad
        #expect(monitor.active.isEmpty)
    }

    @Test("Jitter above 30 ms and loss above 1 % raise their warnings; at the threshold they do not")
    func jitterAndLoss() {
        var monitor = QualityMonitor()
        for _ in 0..<5 { #expect(monitor.add(sample(jitter: 30, loss: 0.01)).isEmpty) }
        var raised: [QualityWarningEvent] = []
        for _ in 0..<3 { raised += monitor.add(sample(jitter: 31, loss: 0.011)) }
        #expect(raised == [.raised(.highJitter), .raised(.highLoss)])
    }

    @Test("Heavy loss lowers the MOS below 3.5 and raises lowMOS; a clean network clears everything")
    func lowMOS() {
        var monitor = QualityMonitor()
        var events: [QualityWarningEvent] = []
        for _ in 0..<5 { events += monitor.add(sample(rtt: 100, jitter: 10, loss: 0.10)) }
        #expect(events.contains(.raised(.lowMOS)))
        #expect(events.contains(.raised(.highLoss)))
        #expect((monitor.latestMOS ?? 5) < 3.5)
        for _ in 0..<5 { events += monitor.add(sample()) }
        #expect(events.contains(.cleared(.lowMOS)))
        #expect(monitor.active.isEmpty)
    }

    @Test("Without an RTT measurement there is no RTT or MOS warning")
    func noRTT() {
        var monitor = QualityMonitor()
        for _ in 0..<10 { #expect(monitor.add(sample(rtt: nil)).isEmpty) }
        #expect(monitor.latestMOS == nil)
    }

    @Test("Constant input level: raised after 10 samples within 0.1 dB, cleared when the level moves")
    func constantLevel() {
        var monitor = QualityMonitor()
        let levels = [-42.0, -42.05, -41.98, -42.02, -42.0, -42.03, -41.99, -42.0, -42.01]
        for level in levels { #expect(monitor.add(sample(level: level)).isEmpty) }
        #expect(monitor.add(sample(level: -42.0)) == [.raised(.constantInputLevel)])
        #expect(monitor.add(sample(level: -42.3)).isEmpty)  // within the 0.5 dB clearance
        #expect(monitor.add(sample(level: -30)) == [.cleared(.constantInputLevel)])
    }

    @Test("A moving microphone level or a muted microphone never raises the constant-level warning")
    func varyingLevel() {
        var monitor = QualityMonitor()
        for index in 0..<30 { #expect(monitor.add(sample(level: -40 + Double(index % 3))).isEmpty) }
        for _ in 0..<30 { #expect(monitor.add(sample(level: nil)).isEmpty) }
        for _ in 0..<9 { #expect(monitor.add(sample(level: -60)).isEmpty) }
        #expect(monitor.add(sample(level: nil)).isEmpty)
        for _ in 0..<9 { #expect(monitor.add(sample(level: -60)).isEmpty) }
    }

    @Test("A dead input delivering digital silence (-∞ dBFS) raises the constant-level warning")
    func digitalSilence() {
        var monitor = QualityMonitor()
        var events: [QualityWarningEvent] = []
        for _ in 0..<10 { events += monitor.add(sample(level: -.infinity)) }
        #expect(events == [.raised(.constantInputLevel)])
        #expect(monitor.add(sample(level: -50)) == [.cleared(.constantInputLevel)])
        #expect(monitor.add(sample(level: .nan)).isEmpty)
    }
}
