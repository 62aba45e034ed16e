// A client and a bridge MediaEndpoint in virtual time: set-up, two-way audio, pull, RTCP, loss, outage,
// ICE restart, fingerprint mismatch and hang-up.
import PolyCore
import PolyNet
import PolyVoiceTesting
import Testing

@testable import PolySession

/// The media suites run one at a time: the real-time loopback tests must not share two cores with the
/// CPU-heavy virtual-time ones.
@Suite(.serialized) enum MediaSuites {}

extension MediaSuites {
    @Suite("MediaEndpoint in virtual time", .serialized)
    struct MediaEndpointTests {
        @Test("offer/answer, ICE and DTLS connect; audio flows only after the pull, on the agent's line")
        func connectsAndPulls() throws {
            let call = try MediaCall(signal: Signals.tone(hertz: 440, seconds: 6))
            try call.connect()
            #expect(call.client.failure == nil && call.bridge.failure == nil)
            #expect(call.client.has(.connected) && call.bridge.has(.connected))
            #expect(call.client.endpoint.selectedPair?.remote == MediaCall.bridgeAddress)
            #expect(call.bridge.endpoint.selectedPair?.remote == MediaCall.clientAddress)
            // Set-up in virtual time: one gathering quiet period plus a few round trips.
            let connectedAt = try #require(call.client.first(.connected))
            #expect(connectedAt < .milliseconds(600))

            call.run(for: .seconds(1))
            // The bridge receives the microphone but sends no audio before the pull (only RTCP).
            #expect(call.bridge.endpoint.stats.inboundRtp.packetsReceived > 30)
            #expect(call.client.endpoint.stats.inboundRtp.packetsReceived == 0)
            #expect(call.client.has(.mediaFlowing))

            try call.pull()
            call.run(for: .seconds(3))
            let stats = call.client.endpoint.stats
            #expect(stats.inboundRtp.packetsReceived > 120)
            #expect(stats.inboundRtp.ssrc != nil)
            let playout = try #require(call.clock?.clientPlayout)
            let lastSecond = playout.suffix(48_000)
            #expect(abs(Signals.frequency(lastSecond) - 440) < 10)
            #expect(Signals.rms(lastSecond) > 2000)
        }

        @Test(
            "speech echoed by the bridge correlates with what was sent; RTCP measures the RTT (bridge audio at 48 and 16 kHz)",
            arguments: [48_000, 16_000])
        func speechRoundTripAndRTT(bridgeRate: Int) throws {
            let speech = try Signals.speech()
            let call = try MediaCall(signal: [], bridgeRate: bridgeRate)
            #expect(call.bridge.endpoint.playoutFrameSamples == bridgeRate / 50)
            call.network.setImpairment(
                LinkImpairment(delay: .milliseconds(25)), between: call.clientHost, and: call.bridgeHost)
            try call.connect()
            try call.pull()
            // Past the start delay's hold (4 s), whose take-back in the first pause after it would move the echo's
            // delay by about 20 ms per jitter buffer inside the speech, which one alignment cannot follow.
            call.run(for: .milliseconds(4_500))
            let clock = try #require(call.clock)
            clock.signal = speech
            clock.restartSignal()
            call.run(for: .seconds(Double(speech.count) / 48_000 + 1))
            let comparison = AudioComparison(
                reference: Signals.floats(speech), degraded: Signals.floats(clock.clientPlayout), sampleRate: 48_000)
            #expect(comparison.correlation > 0.6)
            // Two 25 ms network legs, two encodes, two jitter buffers and the echo's frame.
            #expect(comparison.delayMilliseconds > 50 && comparison.delayMilliseconds < 300)
            let rtt = try #require(call.client.endpoint.stats.remoteInboundRtp.roundTripTime)
            #expect(abs(rtt - 0.050) < 0.005)
            #expect(call.client.endpoint.encoderLossPercent == 0)
        }

        @Test(
            "5 % loss: FEC recovers packets and the loss reported by RTCP reaches the encoder (bridge at 48 and 16 kHz)",
            arguments: [48_000, 16_000])
        func lossDrivesFEC(bridgeRate: Int) throws {
            let speech = try Signals.speech()
            let call = try MediaCall(signal: speech + speech + speech, bridgeRate: bridgeRate)
            try call.connect()
            try call.pull()
            call.run(for: .seconds(2))
            // Clean so far: the far end's first reports replaced the initial expectation.
            #expect(call.client.endpoint.encoderLossPercent == 0)
            call.network.setImpairment(
                LinkImpairment(loss: .uniform(0.05), delay: .milliseconds(20)), between: call.clientHost,
                and: call.bridgeHost)
            call.run(for: .seconds(10))
            #expect(call.client.endpoint.encoderLossPercent >= 2)
            #expect(call.bridge.endpoint.encoderLossPercent >= 2)
            #expect(call.client.endpoint.playoutStatistics.fecPacketsRecovered > 5)
            #expect(call.bridge.endpoint.playoutStatistics.fecPacketsRecovered > 5)
            #expect(call.client.endpoint.stats.remoteInboundRtp.fractionLost != nil)
        }

        @Test("clean-path coding: CELT once reports show no loss, SILK with FEC while loss is reported, and back")
        func cleanPathCodingFollowsReports() throws {
            let speech = try Signals.speech()
            let call = try MediaCall(
                signal: Array(repeating: speech, count: 8).flatMap { $0 }, bridgeCleanPathCoding: .celtWideband)
            try call.connect()
            try call.pull()
            // Before the caller's first receiver report the path is unknown: the main encoder (FEC) codes.
            #expect(!call.bridge.endpoint.isCodingCleanPath)
            let clock = try #require(call.clock)
            call.run(for: .seconds(4))
            #expect(call.bridge.endpoint.isCodingCleanPath)
            #expect(Signals.rms(clock.clientPlayout.suffix(96_000)) > 300)

            call.network.setImpairment(
                LinkImpairment(loss: .uniform(0.05), delay: .milliseconds(20)), between: call.clientHost,
                and: call.bridgeHost)
            call.run(for: .seconds(10))
            #expect(!call.bridge.endpoint.isCodingCleanPath)
            #expect(call.bridge.endpoint.encoderLossPercent >= 2)
            // Only SILK carries in-band FEC: recoveries at the client show the main encoder is on the wire.
            #expect(call.client.endpoint.playoutStatistics.fecPacketsRecovered > 5)

            call.network.setImpairment(LinkImpairment(), between: call.clientHost, and: call.bridgeHost)
            call.run(for: .seconds(10))
            #expect(call.bridge.endpoint.isCodingCleanPath)
            #expect(Signals.rms(clock.clientPlayout.suffix(96_000)) > 300)
        }

        @Test("expectedLossPercent is the encoder's loss % until the first receiver report; then reports drive it")
        func expectedLossSeedsTheEncoder() throws {
            let speech = try Signals.speech()
            /// Media under 10 % loss from the start, reports every ~5 s (RFC 3550's minimum) so the wait for the
            /// first one is long: the client encoder's loss % sampled every 100 ms until the client has the
            /// bridge's first report, at that report, and 6 s later.
            func run(expected: Int, fec: Bool = true) throws -> (before: Set<Int>, atReport: Int, later: Int) {
                let call = try MediaCall(
                    signal: speech + speech,
                    clientCodec: CodecSettings(forwardErrorCorrection: fec, expectedLossPercent: expected),
                    rtcpInterval: .seconds(5))
                try call.connect()
                call.network.setImpairment(
                    LinkImpairment(loss: .uniform(0.10), delay: .milliseconds(20)), between: call.clientHost,
                    and: call.bridgeHost)
                var before: Set<Int> = []
                let deadline = call.scheduler.now + .seconds(10)
                while call.client.endpoint.stats.remoteInboundRtp.fractionLost == nil, call.scheduler.now < deadline {
                    before.insert(call.client.endpoint.encoderLossPercent)
                    call.run(for: .milliseconds(100))
                }
                #expect(call.client.endpoint.stats.remoteInboundRtp.fractionLost != nil)
                let atReport = call.client.endpoint.encoderLossPercent
                call.run(for: .seconds(6))
                return (before, atReport, call.client.endpoint.encoderLossPercent)
            }
            let seeded = try run(expected: 15)
            let unseeded = try run(expected: 0)
            let withoutFEC = try run(expected: 15, fec: false)
            // Until the first report the encoder plans for the expectation (FEC off: nothing to plan).
            #expect(seeded.before == [15])
            #expect(unseeded.before == [0])
            #expect(withoutFEC.before == [0])
            // From the first report on the measured ~10 % drives it (capped at 20), whatever the expectation was.
            #expect((3...20).contains(seeded.atReport) && (3...20).contains(unseeded.atReport))
            #expect((3...20).contains(seeded.later) && (3...20).contains(unseeded.later))
            #expect(withoutFEC.atReport == 0 && withoutFEC.later == 0)
        }

        @Test("a clean path brings the initial expectation down to 0 with the first receiver report")
        func cleanPathDropsTheExpectation() throws {
            let call = try MediaCall(signal: Signals.tone(hertz: 440, seconds: 5))
            try call.connect()
            #expect(call.client.endpoint.encoderLossPercent == CodecSettings().expectedLossPercent)
            #expect(call.bridge.endpoint.encoderLossPercent == CodecSettings().expectedLossPercent)
            call.scheduler.run(until: call.scheduler.now + .seconds(3)) {
                call.client.endpoint.stats.remoteInboundRtp.fractionLost != nil
            }
            #expect(call.client.endpoint.stats.remoteInboundRtp.fractionLost == 0)
            #expect(call.client.endpoint.encoderLossPercent == 0)
        }

        @Test("a 5 s outage: mediaStalled, then mediaFlowing and audio back within 500 ms")
        func outageRecovers() throws {
            let call = try MediaCall(signal: Signals.tone(hertz: 440, seconds: 30))
            try call.connect()
            try call.pull()
            call.run(for: .seconds(1))
            let outageStart = call.scheduler.now
            let outageEnd = outageStart + .seconds(5)
            let impairment = LinkImpairment(
                outages: [(outageStart - call.network.start)..<(outageEnd - call.network.start)])
            call.network.setImpairment(impairment, between: call.clientHost, and: call.bridgeHost)
            call.run(for: .seconds(8))
            let stalled = try #require(call.client.first(.mediaStalled, after: outageStart))
            #expect(stalled - outageStart <= .milliseconds(2100))
            let flowing = try #require(call.client.first(.mediaFlowing, after: outageEnd))
            #expect(flowing - outageEnd < .milliseconds(200))
            // Audio plays again: find the first loud 20 ms frame after the outage in the client's playout.
            let clock = try #require(call.clock)
            let playout = clock.clientPlayout
            let endIndex = Int((outageEnd - clock.started).inSeconds * 48_000)
            var back: Int?
            var index = endIndex
            while index + 960 <= playout.count {
                if Signals.rms(playout[index..<(index + 960)]) > 2000 {
                    back = index
                    break
                }
                index += 960
            }
            let resumed = try #require(back)
            #expect(Double(resumed - endIndex) / 48 <= 500)
            #expect(call.bridge.has(.mediaStalled) && call.bridge.first(.mediaFlowing, after: outageEnd) != nil)
        }

        @Test("a quiet far end after a 5 s outage: keepChecking's probes see the path back within 250 ms")
        func checkConnectivityAfterOutage() throws {
            /// The first `mediaFlowing` after the network returns, measured from its return; `probe` plays the
            /// shell's part: `keepChecking` (checkConnectivity) when the call goes reconnecting on the stall.
            func recovery(probe: Bool, seed: UInt64) throws -> Duration {
                // Quiet: no audio and only regular RTCP. With early loss reports the bridge would answer the first
                // packet after the outage at once (`firstLossIsReportedEarly`), which is not what this is about.
                let call = try MediaCall(
                    seed: seed, signal: Signals.tone(hertz: 440, seconds: 20), earlyLossReports: false)
                let clock = try #require(call.clock)
                clock.bridgeSends = false
                try call.connect()
                try call.pull()
                call.run(for: .seconds(2))
                #expect(call.client.has(.mediaFlowing))  // RTCP alone keeps a quiet far end alive.
                let outageStart = call.scheduler.now
                let outageEnd = outageStart + .seconds(5)
                call.network.setImpairment(
                    LinkImpairment(outages: [(outageStart - call.network.start)..<(outageEnd - call.network.start)]),
                    between: call.clientHost, and: call.bridgeHost)
                call.scheduler.run(until: outageEnd) { call.client.first(.mediaStalled, after: outageStart) != nil }
                let stalledAt = try #require(call.client.first(.mediaStalled, after: outageStart))
                #expect(stalledAt - outageStart <= .milliseconds(2100))
                if probe {
                    call.client.endpoint.checkConnectivity(at: call.scheduler.now)
                    call.client.collect(at: call.scheduler.now)
                }
                call.scheduler.run(until: outageEnd + .seconds(4)) {
                    call.client.first(.mediaFlowing, after: outageEnd) != nil
                }
                let flowing = try #require(call.client.first(.mediaFlowing, after: outageEnd))
                #expect(call.client.endpoint.iceState == .connected || call.client.endpoint.iceState == .completed)
                #expect(call.client.failure == nil)
                return flowing - outageEnd
            }
            let seeds: [UInt64] = [7, 8]
            let probed = try seeds.map { try recovery(probe: true, seed: $0) }
            let unprobed = try seeds.map { try recovery(probe: false, seed: $0) }
            // Urgent probes every 200 ms (plus the simulated round trip) against the next RTCP report or
            // 1 s disconnected-state probe.
            #expect(probed.allSatisfy { $0 <= .milliseconds(250) })
            #expect(probed.reduce(Duration.zero, +) < unprobed.reduce(Duration.zero, +))
            print(
                "quiet far end, 5 s outage: media seen back after the network returned: \(probed) with keepChecking, \(unprobed) without"
            )
        }

        @Test("client address change + ICE restart: media continues on the new pair")
        func iceRestartAfterAddressChange() throws {
            let call = try MediaCall(signal: Signals.tone(hertz: 440, seconds: 20))
            try call.connect()
            try call.pull()
            call.run(for: .seconds(1))
            let newAddress = TransportAddress("10.0.0.9:5002")!
            call.network.changeAddress(
                of: call.clientHost, from: MediaCall.clientAddress, to: newAddress, at: call.scheduler.now)
            call.run(for: .milliseconds(100))
            try call.client.endpoint.restartICE(at: call.scheduler.now)
            call.client.collect(at: call.scheduler.now)
            let offer = try call.client.endpoint.createOffer(at: call.scheduler.now)
            let answer = try call.bridge.endpoint.applyOffer(offer, at: call.scheduler.now)
            try call.client.endpoint.applyAnswer(answer, at: call.scheduler.now)
            let restartedAt = call.scheduler.now
            call.run(for: .seconds(3))
            #expect(call.client.endpoint.selectedPair?.local == newAddress)
            #expect(call.bridge.endpoint.selectedPair?.remote == newAddress)
            let received = call.bridge.endpoint.stats.inboundRtp.packetsReceived
            call.run(for: .seconds(1))
            #expect(call.bridge.endpoint.stats.inboundRtp.packetsReceived - received >= 45)
            let playout = try #require(call.clock?.clientPlayout)
            #expect(Signals.rms(playout.suffix(48_000)) > 2000)
            #expect(call.client.failure == nil && call.bridge.failure == nil)
            #expect(call.client.first(.mediaFlowing, after: restartedAt) != nil || !call.client.has(.mediaStalled))
        }

        @Test("a fingerprint that does not match the certificate fails the call")
        func fingerprintMismatchFails() throws {
            let call = try MediaCall()
            try call.connect(tamperFingerprint: true)
            let failure = try #require(call.client.failure)
            #expect(failure.contains("fingerprint"))
            #expect(!call.client.has(.connected))
        }

        @Test("close sends BYE and close_notify: the other side sees remoteBye and remoteClosed")
        func closeIsSeenByThePeer() throws {
            let call = try MediaCall(signal: Signals.tone(hertz: 440, seconds: 5))
            try call.connect()
            try call.pull()
            call.run(for: .seconds(1))
            call.client.endpoint.close(at: call.scheduler.now)
            call.client.collect(at: call.scheduler.now)
            #expect(call.client.has(.closed))
            call.run(for: .milliseconds(200))
            #expect(call.bridge.has(.remoteBye))
            #expect(call.bridge.has(.remoteClosed))
            #expect(call.client.endpoint.nextDeadline() == nil)
        }
    }
}
