// The pull a bridge refuses (409) while it has not yet seen media connected, a moment after the client has.
import Testing

@testable import PolyVoice

@Suite("Pull refused until the bridge sees media", .serialized)
struct CallShellPullRetryTests {
    @Test func aPullRefusedUntilTheBridgeSeesMediaIsRetriedUntilAdmitted() async throws {
        // Longer than the quick retries (10 + 20 + 40 + 80 ms): the 100 ms ones must go on.
        let harness = try ShellHarness(bridgeConnectDelay: .milliseconds(400))
        defer { harness.stop() }
        let capture = LogCapture()
        let call = try harness.call(logSink: capture.sink, logLevel: .debug)
        try await call.start()
        #expect(await Wait.until { harness.log.all.contains("bridge applyPullAnswer fake-pull-answer") })
        #expect(call.state == .connected)
        #expect(capture.lines.filter { $0.contains("pull refused (409)") }.count >= 3)
        await call.end()
    }

    @Test func retriesComeSoonFirstThenEvery100msForAbout2Seconds() {
        let policy = CallShell.pullRetry
        let waits = (1..<policy.maxAttempts).map {
            Int((policy.backoff(afterAttempt: $0, unitRandom: 0).inSeconds * 1000).rounded())
        }
        // The bridge is usually a datagram's trip behind: the first retry does not wait 100 ms.
        #expect(Array(waits.prefix(5)) == [10, 20, 40, 80, 100])
        #expect(waits.dropFirst(4).allSatisfy { $0 == 100 })
        #expect((1900...2200).contains(waits.reduce(0, +)))
    }
}
