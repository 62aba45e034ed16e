// The SDP the endpoints exchange: PROTOCOL.md §2 offer shape, the bridge's answer, the pull offer with the
// agent's line in the same BUNDLE and the client's answer to it; mute and barge-in on the audio path.
import Foundation
import PolyCore
import PolyNet
import Testing

@testable import PolySession

extension MediaSuites {
    @Suite("MediaEndpoint signaling and controls")
    struct MediaSignalingTests {
        @Test("offer, answer, pull offer and pull answer have the shapes PROTOCOL.md asks for")
        func descriptionShapes() throws {
            let call = try MediaCall(signal: Signals.tone(hertz: 440, seconds: 5))
            call.scheduler.run(until: call.scheduler.now + .seconds(1)) { call.client.has(.gatheringComplete) }
            let offerText = try call.client.endpoint.createOffer(at: call.scheduler.now)
            let offer = try SessionDescription(parsing: offerText)
            #expect(offer.media.count == 1)
            #expect(offer.media[0].mid == "0" && offer.media[0].setup == .actpass && offer.media[0].rtcpMux)
            #expect(offer.media[0].proto == "UDP/TLS/RTP/SAVPF")
            #expect(offer.media[0].fmtp(SDPNegotiation.opusPayloadType) == "minptime=10;useinbandfec=1")
            #expect(offer.media[0].candidates.map(\.address) == [MediaCall.clientAddress])
            #expect(offer.media[0].endOfCandidates && offer.bundle == ["0"] && !offer.iceLite)

            let answer = try SessionDescription(
                parsing: try call.bridge.endpoint.applyOffer(offerText, at: call.scheduler.now))
            #expect(answer.iceLite && answer.media[0].setup == .active)
            #expect(answer.media[0].direction == .recvonly)  // the bridge only receives the microphone
            try call.client.endpoint.applyAnswer(answer.text, at: call.scheduler.now)
            call.scheduler.run(until: call.scheduler.now + .seconds(2)) { call.bridge.has(.connected) }

            let pull = try SessionDescription(parsing: try call.bridge.endpoint.createPullOffer(at: call.scheduler.now))
            #expect(pull.media.map(\.mid) == ["0", "1"] && pull.bundle == ["0", "1"])
            #expect(pull.media.map(\.direction) == [.recvonly, .sendonly])
            #expect(pull.media.allSatisfy { $0.setup == .active })
            #expect(pull.media[1].ssrcs.count == 1)
            let pullAnswer = try SessionDescription(
                parsing: try call.client.endpoint.applyOffer(pull.text, at: call.scheduler.now))
            #expect(pullAnswer.media.map(\.direction) == [.sendonly, .recvonly])
            #expect(pullAnswer.media.allSatisfy { $0.setup == .passive })
            #expect(pullAnswer.bundle == ["0", "1"])
            #expect(pullAnswer.media[0].iceUfrag == offer.media[0].iceUfrag)
            try call.bridge.endpoint.applyPullAnswer(pullAnswer.text, at: call.scheduler.now)
            #expect(call.bridge.endpoint.canSend)
        }

        @Test("an offered payload type other than 111 (aiortc's 96) is kept, also in the pull offer")
        func keepsOfferedPayloadType() throws {
            let call = try MediaCall(signal: Signals.tone(hertz: 440, seconds: 10))
            call.scheduler.run(until: call.scheduler.now + .seconds(1)) { call.client.has(.gatheringComplete) }
            let offer = try call.client.endpoint.createOffer(at: call.scheduler.now)
                .replacingOccurrences(of: "SAVPF 111", with: "SAVPF 96")
                .replacingOccurrences(of: "a=rtpmap:111 ", with: "a=rtpmap:96 ")
                .replacingOccurrences(of: "a=fmtp:111 ", with: "a=fmtp:96 ")
            let answer = try call.bridge.endpoint.applyOffer(offer, at: call.scheduler.now)
            #expect(try SessionDescription(parsing: answer).media[0].opusPayloadType == 96)
            try call.client.endpoint.applyAnswer(answer, at: call.scheduler.now)
            call.scheduler.run(until: call.scheduler.now + .seconds(2)) { call.bridge.has(.connected) }
            let pull = try SessionDescription(parsing: try call.bridge.endpoint.createPullOffer(at: call.scheduler.now))
            // Opus keeps 96; telephone-event (negotiated on 110) follows it on both lines.
            #expect(pull.media.map(\.formats) == [["96", "110"], ["96", "110"]])
            #expect(pull.media.map(\.opusPayloadType) == [96, 96])
            try call.bridge.endpoint.applyPullAnswer(
                try call.client.endpoint.applyOffer(pull.text, at: call.scheduler.now), at: call.scheduler.now)
            call.run(for: .seconds(1))
            #expect(call.client.endpoint.stats.inboundRtp.packetsReceived > 40)
        }

        @Test("a re-offer that renumbers Opus (aiortc's pull offers: 96) leaves the payload type we send alone")
        func reofferKeepsTheNegotiatedPayloadType() throws {
            let call = try MediaCall(signal: Signals.tone(hertz: 440, seconds: 5))
            try call.connect()
            // Before the first packet: what we send must not depend on whether the re-offer came before it.
            #expect(call.client.endpoint.outgoing.packetsSent == 0)
            let renumbered = try call.bridge.endpoint.createPullOffer(at: call.scheduler.now)
                .replacingOccurrences(of: "SAVPF 111", with: "SAVPF 96")
                .replacingOccurrences(of: "a=rtpmap:111 ", with: "a=rtpmap:96 ")
                .replacingOccurrences(of: "a=fmtp:111 ", with: "a=fmtp:96 ")
            _ = try call.client.endpoint.applyOffer(renumbered, at: call.scheduler.now)
            call.run(for: .seconds(1))
            #expect(call.client.endpoint.outgoing.payloadType == 111)
            #expect(call.bridge.endpoint.stats.inboundRtp.packetsReceived > 40)
        }

        @Test("signaling calls out of turn are refused with typed errors")
        func refusals() throws {
            let fresh = try MediaEndpoint(
                configuration: MediaEndpointConfiguration(role: .client, certificate: try DTLSCertificate.generate()))
            #expect(throws: MediaEndpointError.gatheringIncomplete) { _ = try fresh.createOffer(at: .zero) }
            let call = try MediaCall()
            #expect(throws: MediaEndpointError.self) { _ = try call.bridge.endpoint.createOffer(at: .zero) }
            #expect(throws: MediaEndpointError.self) { _ = try call.bridge.endpoint.createPullOffer(at: .zero) }
            #expect(throws: MediaEndpointError.self) { try call.client.endpoint.applyAnswer("v=0", at: .zero) }
            #expect(throws: MediaEndpointError.self) {
                _ = try call.bridge.endpoint.applyOffer("not sdp", at: .zero)
            }
        }

        @Test("mute keeps RTP flowing with silence; flushPlayout silences playout at once")
        func muteAndBargeIn() throws {
            let call = try MediaCall(signal: Signals.tone(hertz: 440, seconds: 20))
            try call.connect()
            try call.pull()
            call.run(for: .seconds(2))
            let clock = try #require(call.clock)
            #expect(Signals.rms(clock.clientPlayout.suffix(9600)) > 2000)

            call.client.endpoint.flushPlayout()
            var frame = [Int16](repeating: 1, count: 960)
            frame.withUnsafeMutableBufferPointer { call.client.endpoint.pullPlayout(into: $0, at: call.scheduler.now) }
            #expect(Signals.rms(frame[...]) == 0)

            call.client.endpoint.setMuted(true)
            let before = call.bridge.endpoint.stats.inboundRtp.packetsReceived
            call.run(for: .seconds(2))
            #expect(call.bridge.endpoint.stats.inboundRtp.packetsReceived - before >= 95)
            #expect(Signals.rms(clock.clientPlayout.suffix(9600)) < 100)
        }
    }
}
