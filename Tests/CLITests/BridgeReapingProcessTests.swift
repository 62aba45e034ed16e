// Callers that vanish without a DTLS close or DELETE (issue 19), against a real `polyvoice bridge`: the
// callers are frozen with SIGSTOP (no packet, no FIN: their sockets stay open as a lost network leaves them),
// the bridge reaps each call at --media-timeout and its descriptors and live-call count return to baseline.
import Foundation
import Testing

@Suite("bridge reaps vanished callers", .serialized)
struct BridgeReapingProcessTests {
    @Test func frozenCallersAreReapedAtTheMediaTimeoutAndTheBridgeReturnsToBaseline() async throws {
        let record = FileManager.default.temporaryDirectory.appendingPathComponent("pv-reap-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: record) }
        // Every caller comes from 127.0.0.1: the per-client request limit (20/s) would refuse a batch's set-ups.
        let bridge = try KillableBridge(arguments: ["--media-timeout", "2", "--record", record.path, "--rate", "10000"])
        defer { bridge.stop() }
        // Baseline after one call that ended normally (the first call loads what every call shares).
        let warmUp = try CallChild(
            bridgePort: bridge.port, arguments: ["--input", "null", "--output", "null", "--duration", "1"])
        #expect(await warmUp.exitStatus(within: .seconds(20)) == 0)
        #expect(await eventually(.seconds(5)) { await bridge.metric("polyvoice_bridge_active_calls") == 0 })
        try await Task.sleep(for: .milliseconds(300))
        let baseline = bridge.descriptorCount

        // `make test`: 5 callers. Benchmarks/Reaping/run.sh: POLYVOICE_REAP_CALLS in batches of POLYVOICE_REAP_BATCH.
        let environment = ProcessInfo.processInfo.environment
        let count = environment["POLYVOICE_REAP_CALLS"].flatMap(Int.init) ?? 5
        let batch = environment["POLYVOICE_REAP_BATCH"].flatMap(Int.init) ?? count
        var reaped = 0
        var slowest = Duration.zero
        let began = ContinuousClock.now
        while reaped < count {
            let size = min(batch, count - reaped)
            var callers: [CallChild] = []
            for _ in 0..<size {
                callers.append(
                    try CallChild(bridgePort: bridge.port, arguments: ["--input", "null", "--output", "null"]))
            }
            defer { for caller in callers { caller.signal(SIGKILL) } }
            for caller in callers {
                #expect(
                    await caller.wait(.seconds(60)) { _ in caller.states.contains("connected") },
                    "caller states \(caller.states); stderr: \(caller.standardErrorTail)")
            }
            #expect(await bridge.metric("polyvoice_bridge_active_calls") == Double(size))
            #expect(bridge.descriptorCount > baseline)
            for caller in callers { caller.signal(SIGSTOP) }
            let frozen = ContinuousClock.now

            #expect(await eventually(.seconds(10)) { await bridge.metric("polyvoice_bridge_active_calls") == 0 })
            let reapedAfter = ContinuousClock.now - frozen
            slowest = max(slowest, reapedAfter)
            #expect(reapedAfter >= .seconds(2), "reaped after \(reapedAfter)")
            reaped += size
            #expect(
                await bridge.metric("polyvoice_bridge_calls_total{outcome=\"media_timeout\"}") == Double(reaped))
            // Sockets, the events connections' descriptors and the recorders' files are all released. A frozen
            // caller never answers the close frame of its events socket: libwebsockets holds that descriptor
            // for its 5 s close-acknowledgement timeout (checked once a second) before letting it go.
            #expect(
                await eventually(.seconds(10)) { bridge.descriptorCount == baseline },
                "fds \(bridge.descriptorCount) vs \(baseline)")
            for caller in callers { caller.signal(SIGKILL) }
            for caller in callers { _ = await caller.exitStatus(within: .seconds(5)) }
            callers.removeAll()
        }
        if environment["POLYVOICE_REAP_REPORT"] == "1" {
            print(
                "RESULT_JSON {\"calls\":\(count),\"batch\":\(batch),\"reaped_media_timeout\":\(reaped),"
                    + "\"fds_baseline\":\(baseline),\"fds_after\":\(bridge.descriptorCount),"
                    + "\"slowest_reap_s\":\(Double(slowest.components.seconds) + Double(slowest.components.attoseconds) / 1e18),"
                    + "\"seconds\":\((ContinuousClock.now - began).components.seconds)}")
        }
        let recordings = try FileManager.default.contentsOfDirectory(atPath: record.path).filter {
            $0.hasSuffix(".wav")
        }
        #expect(recordings.count == count + 1)
    }
}

/// Polls an async condition until it holds or `timeout` passes.
func eventually(_ timeout: Duration, _ condition: () async -> Bool) async -> Bool {
    let end = ContinuousClock.now + timeout
    while ContinuousClock.now < end {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return await condition()
}
