// The sender's policy on live endpoints in virtual time: the far end's fmtp applied from the offer, and the
// bitrate following the RTCP-driven loss hint (up while FEC spends bits, back down on a clean path).
import Foundation
import PolyAudio
import PolyCore
import PolyNet
import Testing

@testable import PolySession

extension MediaSuites {
    @Suite("MediaEndpoint sender policy")
    struct MediaEndpointSenderTests {
        @Test("the offer's fmtp caps the bridge's bitrate and band, turns FEC off and DTX on")
        func offerFormatIsHonoured() throws {
            let call = try MediaCall(signal: Signals.tone(hertz: 440, seconds: 5))
            call.scheduler.run(until: call.scheduler.now + .seconds(1)) { call.client.has(.gatheringComplete) }
            #expect(call.bridge.endpoint.encoderBitrate == 64_000)  // FEC planned for 10 % until a report
            #expect(call.bridge.endpoint.encoderMaxBandwidth == .wideband && call.bridge.endpoint.encoderUsesFEC)
            let offer = try call.client.endpoint.createOffer(at: call.scheduler.now)
                .replacingOccurrences(
                    of: "a=fmtp:111 minptime=10;useinbandfec=1",
                    with: "a=fmtp:111 minptime=10;useinbandfec=0;usedtx=1;maxaveragebitrate=20000;"
                        + "maxplaybackrate=8000;sprop-maxcapturerate=16000")
            _ = try call.bridge.endpoint.applyOffer(offer, at: call.scheduler.now)
            #expect(call.bridge.endpoint.encoderBitrate == 20_000)
            #expect(call.bridge.endpoint.encoderMaxBandwidth == .narrowband)
            #expect(!call.bridge.endpoint.encoderUsesFEC && call.bridge.endpoint.encoderLossPercent == 0)
            #expect(call.bridge.endpoint.encoderUsesDTX)
            // The client's own encoder is untouched by its own offer.
            #expect(call.client.endpoint.encoderBitrate == 64_000 && !call.client.endpoint.encoderUsesDTX)
        }

        @Test("the bitrate rises while reports show loss and comes back on a clean path; adaptiveBitrate off keeps it")
        func bitrateFollowsTheLossHint() throws {
            func run(_ codec: CodecSettings) throws -> (clean: Int, lossy: Int, recovered: Int) {
                let speech = try Signals.speech()
                let call = try MediaCall(signal: speech + speech + speech, clientCodec: codec)
                try call.connect()
                call.run(for: .seconds(3))
                let clean = call.client.endpoint.encoderBitrate
                call.network.setImpairment(
                    LinkImpairment(loss: .uniform(0.05), delay: .milliseconds(20)), between: call.clientHost,
                    and: call.bridgeHost)
                call.run(for: .seconds(6))
                #expect(call.client.endpoint.encoderLossPercent >= 1)
                let lossy = call.client.endpoint.encoderBitrate
                call.network.setImpairment(LinkImpairment(), between: call.clientHost, and: call.bridgeHost)
                call.run(for: .seconds(12))
                #expect(call.client.endpoint.encoderLossPercent == 0)
                return (clean, lossy, call.client.endpoint.encoderBitrate)
            }
            let adaptive = try run(CodecSettings())
            #expect(adaptive.clean == 48_000 && adaptive.lossy == 64_000 && adaptive.recovered == 48_000)
            let pinned = try run(CodecSettings(bitrate: 40_000, adaptiveBitrate: false))
            #expect(pinned.clean == 40_000 && pinned.lossy == 40_000 && pinned.recovered == 40_000)
        }

        /// The first loss after a clean stretch is reported at once (an early RTCP report), so the far end's FEC
        /// comes on within a round trip instead of at the next regular report (up to 1.2 s at the 1 s interval).
        @Test("the first loss after a clean stretch turns the sender's FEC on within a round trip")
        func firstLossIsReportedEarly() throws {
            func millisecondsUntilFEC(earlyLossReports: Bool, seed: UInt64) throws -> Int {
                let speech = try Signals.speech()
                let call = try MediaCall(seed: seed, signal: speech + speech, earlyLossReports: earlyLossReports)
                try call.connect()
                call.run(for: .seconds(3))
                #expect(call.client.endpoint.encoderLossPercent == 0)  // the clean reports turned FEC's hint off
                let dropped = call.scheduler.now
                // 30 ms of total loss: one or two packets each way, then a clean path again.
                call.network.setImpairment(
                    LinkImpairment(loss: .uniform(1)), between: call.clientHost, and: call.bridgeHost)
                call.run(for: .milliseconds(30))
                call.network.setImpairment(LinkImpairment(), between: call.clientHost, and: call.bridgeHost)
                while call.client.endpoint.encoderLossPercent == 0, call.scheduler.now < dropped + .seconds(3) {
                    call.run(for: .milliseconds(10))
                }
                return Int((call.scheduler.now - dropped).totalNanoseconds / 1_000_000)
            }
            for seed: UInt64 in [7, 8, 9] {
                let early = try millisecondsUntilFEC(earlyLossReports: true, seed: seed)
                let regular = try millisecondsUntilFEC(earlyLossReports: false, seed: seed)
                #expect(early <= 100, "seed \(seed): FEC on \(early) ms after the loss")
                #expect(regular > early, "seed \(seed): \(regular) ms without early reports, \(early) ms with")
            }
        }

        /// A connected call 3 s in, the client sending speech: the first receiver reports have arrived.
        private func callWithReports(seed: UInt64) throws -> MediaCall {
            let speech = try Signals.speech()
            let call = try MediaCall(seed: seed, signal: speech + speech + speech)
            try call.connect()
            call.run(for: .seconds(3))
            return call
        }

        /// Packets still on their way at report time are not lost: a path that only reorders (40 ms + σ 30 ms, as
        /// the relay's jitter scenario) must not make the far end code for loss. Counted as RFC 3550's expected −
        /// received, with early reports, they held the far end's hint at 4–5 % on average (peaks of 8–14 %).
        @Test("reordering without loss leaves the far end's loss hint at zero")
        func reorderingIsNotReportedAsLoss() throws {
            for seed: UInt64 in [7, 8, 9] {
                let call = try callWithReports(seed: seed)
                let cleanBitrate = call.client.endpoint.encoderBitrate
                call.network.setImpairment(
                    LinkImpairment(delay: .milliseconds(40), jitter: .milliseconds(30)), between: call.clientHost,
                    and: call.bridgeHost)
                var (samples, withLoss, highest, raised) = (0, 0, 0, 0)
                for _ in 0..<100 {
                    call.run(for: .milliseconds(100))
                    let hint = call.client.endpoint.encoderLossPercent
                    (samples, withLoss, highest) = (samples + 1, withLoss + (hint > 0 ? 1 : 0), max(highest, hint))
                    if call.client.endpoint.encoderBitrate > cleanBitrate { raised += 1 }
                }
                // FEC's raise of the bitrate (docs/SENDER.md) follows the hint: a third more bits for nothing.
                #expect(raised <= samples / 10, "seed \(seed): bitrate raised \(raised) of \(samples)")
                #expect(call.network.linkCounters(from: call.clientHost, to: call.bridgeHost).dropped == 0)
                // The onset may cost one report: reordering not seen before is judged by the first packets.
                #expect(withLoss <= samples / 10, "seed \(seed): loss hint above zero \(withLoss) of \(samples)")
                #expect(highest <= 5, "seed \(seed): loss hint up to \(highest) %")
            }
        }

        /// A pinned loss hint (`pinnedLossHintPercent`, as `polyvoice bridge --agent-loss-hint`) keeps the
        /// coding the far end's reports would change: FEC in the stream after a clean report, none under loss.
        @Test("a pinned loss hint codes the same whatever the far end reports")
        func pinnedLossHintIgnoresReports() throws {
            func fecPackets(pinned: Int?, loss: Double) throws -> (early: UInt64, late: UInt64, hint: Int) {
                let speech = try Signals.speech()
                let call = try MediaCall(signal: speech + speech, bridgeLossHint: pinned)
                try call.connect()
                try call.pull()  // the bridge's line: its stream to the client
                call.network.setImpairment(
                    LinkImpairment(loss: .uniform(loss)), between: call.clientHost, and: call.bridgeHost)
                call.run(for: .seconds(3))  // the client's first reports have arrived
                let early = call.client.endpoint.stats.inboundRtp.fecPacketsReceived
                call.run(for: .seconds(3))
                let late = call.client.endpoint.stats.inboundRtp.fecPacketsReceived - early
                return (early, late, call.bridge.endpoint.encoderLossPercent)
            }
            let followed = try fecPackets(pinned: nil, loss: 0)
            #expect(followed.hint == 0 && followed.late == 0)  // clean reports turned FEC off
            let pinned = try fecPackets(pinned: 10, loss: 0)
            #expect(pinned.hint == 10 && pinned.late > 50, "\(pinned)")
            let pinnedOff = try fecPackets(pinned: 0, loss: 0.1)
            #expect(pinnedOff.hint == 0 && pinnedOff.early + pinnedOff.late == 0, "\(pinnedOff)")
        }

        @Test("a loss on a reordering path is still reported")
        func lossOnAReorderingPathIsReported() throws {
            for seed: UInt64 in [7, 8, 9] {
                let call = try callWithReports(seed: seed)
                call.network.setImpairment(
                    LinkImpairment(loss: .uniform(0.05), delay: .milliseconds(40), jitter: .milliseconds(30)),
                    between: call.clientHost, and: call.bridgeHost)
                call.run(for: .seconds(6))
                let hint = call.client.endpoint.encoderLossPercent
                #expect((2...10).contains(hint), "seed \(seed): loss hint \(hint) % at 5 % loss")
            }
        }
    }
}
