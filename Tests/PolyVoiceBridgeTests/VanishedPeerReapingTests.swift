import Foundation
import PolyCore
import PolySignaling
import Testing

@testable import PolyVoiceBridge

/// Peers that vanish without a DTLS close or a DELETE (issue 19): the bridge's core, driven in virtual
/// time as its reap timer drives it, ends each call at its last packet + `mediaTimeout` and releases what
/// it held (the media session closed, the registry, the reaper and the socket table emptied).
@Suite struct VanishedPeerReapingTests {
    static let tick = Duration.milliseconds(250)
    static let timeouts = CallReaper.Timeouts(
        setupTimeout: .seconds(30), resumeGrace: .seconds(10), mediaTimeout: .seconds(15))

    @Test func aThousandVanishedPeersAreReapedAtTheMediaTimeoutAndFreeEverything() throws {
        let count = 1000
        let medias = Locked<[String: FakeMedia]>([:])
        let configuration = BridgeConfiguration(
            tokens: [TestHarness.webToken], maxCalls: count, timeouts: Self.timeouts,
            media: BridgeMediaFactory { context throws(BridgeMediaError) in
                let media = FakeMedia(context: context)
                medias.withLock { $0[context.callID] = media }
                return media
            },
            log: BridgeLog(level: .error))
        let core = BridgeCore(configuration: configuration, template: try AgentTemplate(configuration.agent))
        var generator = SeededRandom(seed: 1919)
        // Call i is provisioned at i ms, set up (events socket, media) at once, and its peer vanishes at a
        // seeded time between 1 and 60 s: the last packet the bridge sees is the last tick before that.
        var calls: [(id: String, media: FakeMedia, vanish: Instant)] = []
        for index in 0..<count {
            let at = Instant.zero + .milliseconds(index)
            guard case .provisioned(let response) = core.provision(mode: "echo", at: at) else {
                Issue.record("call \(index) was not admitted")
                return
            }
            guard case .found(let entry) = core.authorize(response.callId, token: response.creds.token) else {
                Issue.record("call \(index) not found")
                return
            }
            let media = try #require(try core.mediaSession(for: entry) as? FakeMedia)
            core.state.withLock { $0.reaper.handle(.eventsOpened(entry.id), at: at) }
            let vanish = Instant.zero + .milliseconds(1000 + Int64(generator.next() % 59_000))
            calls.append((entry.id, media, vanish))
        }
        #expect(core.activeCalls == count)

        var endedAt: [String: Instant] = [:]
        var now = Instant.zero
        while now < .zero + .seconds(90) {
            now = now + Self.tick
            for call in calls where now < call.vanish {
                call.media.state.withLock {
                    $0.stats.isConnected = true
                    $0.stats.lastPacketAt = now
                    $0.stats.packetsReceived += 1
                }
            }
            for session in core.reap(at: now) {
                let media = try #require(session as? FakeMedia)
                endedAt[media.context.callID] = now
            }
        }

        #expect(endedAt.count == count)
        var late = 0
        for call in calls {
            // The reaper saw the last packet at the last tick before the peer vanished.
            let ticks = (call.vanish - .zero) / Self.tick
            var lastPacket = Instant.zero + Self.tick * Int(ticks.rounded(.down))
            if lastPacket == call.vanish { lastPacket = lastPacket - Self.tick }
            if endedAt[call.id] != lastPacket + Self.timeouts.mediaTimeout { late += 1 }
            #expect(call.media.state.withLock { $0.closed }, "call \(call.id): media not closed")
        }
        #expect(late == 0, "\(late) calls did not end exactly at their last packet + media timeout")
        #expect(core.activeCalls == 0)
        let state = core.state.withLock { ($0.calls.count, $0.reaper.activeCallIDs.count, $0.sockets.count) }
        #expect(state == (0, 0, 0))
        #expect(core.state.withLock { $0.reaper.nextDeadline() } == nil)
        let metrics = core.metricsText()
        #expect(metrics.contains("polyvoice_bridge_calls_total{outcome=\"media_timeout\"} \(count)\n"))
        #expect(metrics.contains("polyvoice_bridge_active_calls 0\n"))
    }

    @Test func noMetricsSnapshotShowsAReapedCallAsNeitherActiveNorEnded() throws {
        // /metrics is read from other threads while the reaper ends calls: what a reader sees while the media
        // session closes (between the call leaving the registry and the end of its tear-down) must already count
        // it as ended (Benchmarks/Reaping once read `active_calls 0` with one outcome still uncounted).
        let core = Locked<BridgeCore?>(nil)
        let seenAtClose = Locked<[String]>([])
        let configuration = BridgeConfiguration(
            tokens: [TestHarness.webToken], maxCalls: 2, timeouts: Self.timeouts,
            media: BridgeMediaFactory { context throws(BridgeMediaError) in
                FakeMedia(context: context) {
                    let text = core.withLock { $0 }?.metricsText() ?? ""
                    seenAtClose.withLock { $0.append(text) }
                }
            },
            log: BridgeLog(level: .error))
        let bridge = BridgeCore(configuration: configuration, template: try AgentTemplate(configuration.agent))
        core.withLock { $0 = bridge }
        guard case .provisioned(let response) = bridge.provision(mode: "echo", at: .zero),
            case .found(let entry) = bridge.authorize(response.callId, token: response.creds.token)
        else {
            Issue.record("the call was not set up")
            return
        }
        let media = try #require(try bridge.mediaSession(for: entry) as? FakeMedia)
        bridge.state.withLock { $0.reaper.handle(.eventsOpened(entry.id), at: .zero) }
        media.state.withLock {
            $0.stats.isConnected = true
            $0.stats.lastPacketAt = .zero + .seconds(1)
        }
        bridge.reap(at: .zero + .seconds(1))
        #expect(bridge.reap(at: .zero + .seconds(1) + Self.timeouts.mediaTimeout).count == 1)

        let snapshots = seenAtClose.withLock { $0 }
        try #require(snapshots.count == 1)
        #expect(snapshots[0].contains("polyvoice_bridge_active_calls 0\n"))
        #expect(snapshots[0].contains("polyvoice_bridge_calls_total{outcome=\"media_timeout\"} 1\n"))
    }
}
