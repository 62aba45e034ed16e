// DTMF between a client and a bridge MediaEndpoint in virtual time: telephone-event negotiated both ways
// (or not), RFC 4733 events on the audio stream decoded once per digit, in-band tones otherwise.
import Foundation
import PolyAudio
import PolyCore
import PolyMedia
import PolyNet
import PolyVoiceTesting
import Testing

@testable import PolySession

extension MediaSuites {
    @Suite("DTMF between endpoints in virtual time", .serialized)
    struct MediaEndpointDTMFTests {
        static func digits(_ node: EndpointNode) -> [(ReceivedDTMF, Instant)] {
            node.events.compactMap { if case .dtmfReceived(let dtmf) = $0.event { (dtmf, $0.at) } else { nil } }
        }

        @Test func negotiatedEventsArriveOncePerDigitInterleavedWithAudio() throws {
            let call = try MediaCall(signal: Signals.tone(hertz: 300, seconds: 8))
            try call.connect()
            try call.pull()
            call.run(for: .seconds(1))
            #expect(call.client.endpoint.dtmfMethod == .rfc4733)
            #expect(call.bridge.endpoint.dtmfMethod == .rfc4733)
            let sentBefore = call.client.endpoint.stats.outboundRtp.packetsSent
            let method = try call.client.endpoint.sendDTMF("12#", duration: .milliseconds(100), at: call.scheduler.now)
            #expect(method == .rfc4733)
            let sentAt = call.scheduler.now
            let ticksBefore = try #require(call.clock).clientPlayout.count / 960
            call.run(for: .seconds(2))
            let ticks = try #require(call.clock).clientPlayout.count / 960 - ticksBefore
            let received = Self.digits(call.bridge)
            #expect(received.map { $0.0.digit.description } == ["1", "2", "#"])
            // 100 ms at 48 kHz in each event's duration field; digits 200 ms apart (100 ms tone + 100 ms gap).
            #expect(received.allSatisfy { $0.0.durationSamples == 4800 })
            let starts = received.map { ($0.0.start - sentAt).inMilliseconds }
            #expect(zip(starts, starts.dropFirst()).allSatisfy { abs($1 - $0 - 200) < 1 })
            // One packet per frame, except 3 × 5 frames of events: 4 packets and 3 ends each.
            let sent = call.client.endpoint.stats.outboundRtp.packetsSent - sentBefore
            #expect(Int(sent) == ticks - 15 + 3 * 7)
            // One sequence space: the bridge saw no gap, and audio went on after the digits.
            #expect(call.bridge.endpoint.stats.inboundRtp.packetsLost == 0)
            let audioBefore = call.bridge.endpoint.stats.inboundRtp.packetsReceived
            call.run(for: .seconds(1))
            #expect(call.bridge.endpoint.stats.inboundRtp.packetsReceived >= audioBefore + 49)
        }

        @Test(arguments: [(true, false), (false, true)])
        func withoutNegotiationDigitsGoInBand(client: Bool, bridge: Bool) throws {
            let call = try MediaCall(clientTelephoneEvents: client, bridgeTelephoneEvents: bridge)
            try call.connect()
            try call.pull()
            call.run(for: .seconds(1))
            #expect(call.client.endpoint.dtmfMethod == .inband)
            let method = try call.client.endpoint.sendDTMF("1", duration: .milliseconds(400), at: call.scheduler.now)
            #expect(method == .inband)
            let clock = try #require(call.clock)
            let sentAt = clock.clientPlayout.count
            call.run(for: .seconds(2))
            #expect(Self.digits(call.bridge).isEmpty)
            // The bridge echoes what it heard: the client plays back 697 + 1209 Hz ("1"), not 941 + 1336 ("0").
            let played = Array(clock.clientPlayout[sentAt...])
            let loudest = stride(from: 0, to: played.count - 4800, by: 960).max { a, b in
                Signals.rms(played[a..<(a + 4800)]) < Signals.rms(played[b..<(b + 4800)])
            }
            let window = Array(played[try #require(loudest)..<(try #require(loudest) + 4800)])
            let power = { (hertz: Double) in ToneAnalysis.power(window, at: hertz, sampleRate: 48_000) }
            #expect(power(697) > 20 * power(941) && power(1209) > 20 * power(1336))
        }

        @Test func badDigitsAndDurationsAreRefused() throws {
            let call = try MediaCall()
            #expect(throws: DTMFError.notConnected) {
                try call.client.endpoint.sendDTMF("1", at: call.scheduler.now)
            }
            try call.connect()
            let bad = #expect(throws: DTMFError.self) {
                try call.client.endpoint.sendDTMF("12x", at: call.scheduler.now)
            }
            #expect(bad?.description == "'x' is not a DTMF digit (0-9, *, #, A-D)")
            #expect(throws: DTMFError.self) {
                try call.client.endpoint.sendDTMF("1", duration: .milliseconds(10), at: call.scheduler.now)
            }
        }
    }
}
