import PolyCore
import Testing

@testable import PolyNet

@Suite struct SDPTests {
    typealias X = SDPFixtures

    static let local: SDPLocalParameters = {
        var parameters = SDPLocalParameters(
            credentials: ICECredentials(ufrag: "abcd1234", password: "0123456789abcdefghijklmn"),
            candidates: [
                Candidate(
                    foundation: "1", priority: Candidate.priority(kind: .host, localPreference: 65535),
                    address: TransportAddress("192.168.1.10:50000")!, kind: .host),
                Candidate(
                    foundation: "2", priority: Candidate.priority(kind: .serverReflexive, localPreference: 65535),
                    address: TransportAddress("203.0.113.7:61000")!, kind: .serverReflexive,
                    relatedAddress: TransportAddress("192.168.1.10:50000")!),
            ],
            fingerprint: SDPFingerprint(algorithm: "sha-256", bytes: Array(0..<32)), sessionID: 4_242_424_242)
        parameters.ssrc = 12345
        parameters.cname = "pv"
        return parameters
    }()

    @Test func parsesAiortcOffer() throws {
        let offer = try SessionDescription(parsing: X.aiortcOffer)
        #expect(offer.bundle == ["0"])
        let audio = try #require(offer.media.first)
        #expect(audio.kind == "audio" && audio.port == 52734 && audio.proto == "UDP/TLS/RTP/SAVPF")
        #expect(audio.formats == ["96", "0", "8"])
        #expect(audio.opusPayloadType == 96)
        #expect(audio.fmtp(96) == nil)
        #expect(audio.direction == .sendrecv && audio.rtcpMux && audio.mid == "0")
        #expect(audio.setup == .actpass)
        #expect(audio.fingerprints.map(\.algorithm) == ["sha-256", "sha-384", "sha-512"])
        #expect(audio.fingerprints.map(\.bytes.count) == [32, 48, 64])
        #expect(audio.ssrcs == [3_356_735_183])
        #expect(audio.extmaps.map(\.id) == [1, 2])
        #expect(audio.endOfCandidates)
        let ice = try #require(offer.iceParameters)
        #expect(ice.credentials == ICECredentials(ufrag: "LKcE", password: "8oqkxJLo3cO1hYZOmGZrjX"))
        #expect(ice.candidates.map(\.address) == [TransportAddress("127.0.0.1:52734")!])
        #expect(!ice.isLite)
    }

    @Test func parsesChromeShapedPullOffer() throws {
        let offer = try SessionDescription(parsing: X.chromePullOffer)
        #expect(offer.iceLite && offer.bundle == ["0", "1"])
        #expect(offer.media.count == 3)
        let mic = offer.media[0]
        #expect(mic.direction == .recvonly && mic.opusPayloadType == 111)
        #expect(mic.fmtp(111) == "minptime=10;useinbandfec=1")
        #expect(mic.fmtp(63) == "111/111")
        #expect(mic.iceOptions == ["trickle", "renomination"])
        #expect(mic.otherLines == ["b=AS:64"])
        #expect(mic.extmaps.last?.direction == .recvonly)
        // mDNS host name skipped, TCP kept as a Candidate (the agent ignores it), extensions kept.
        let candidates = mic.candidates
        #expect(candidates.count == 3)
        #expect(candidates[1].transport == "tcp")
        #expect(candidates[1].extensions.contains(Candidate.Extension(name: "tcptype", value: "active")))
        #expect(
            candidates[2].kind == .serverReflexive
                && candidates[2].relatedAddress == TransportAddress("192.168.0.196:46243"))
        #expect(
            candidates[0].extensions == [.init(name: "generation", value: "0"), .init(name: "network-id", value: "1")])
        let agent = offer.media[1]
        #expect(agent.direction == .sendonly && agent.opusPayloadType == 109)  // OPUS in upper case
        #expect(agent.ssrcs == [1001])
        #expect(agent.attributes.value("x-polyvoice-custom") == "keep me")
    }

    @Test func roundTripPreservesEveryLine() throws {
        for fixture in [X.aiortcOffer, X.chromePullOffer] {
            let parsed = try SessionDescription(parsing: fixture)
            #expect(parsed.text == fixture)
            #expect(try SessionDescription(parsing: parsed.text) == parsed)
        }
    }

    @Test func rejectsMalformedLinesWithTheirNumber() {
        let cases: [(String, Int)] = [
            ("v=1\r\n", 1),
            ("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=audio x UDP 111\r\n", 5),
            (
                "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus\r\n",
                6
            ),
            (
                "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=audio 9 P 111\r\na=mid:0\r\na=candidate:1 1 udp x 1.2.3.4 5 typ host\r\n",
                7
            ),
            ("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=audio 9 P 111\r\na=fingerprint:sha-256 ZZ:00\r\n", 6),
            ("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=audio 9 P 111\r\na=setup:sideways\r\n", 6),
            ("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nnonsense\r\nt=0 0\r\n", 4),
            ("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n\r\nm=audio 9 P 1\r\n", 5),
            ("v=0\r\no=- 1\r\n", 2),
        ]
        for (text, line) in cases {
            #expect {
                try SessionDescription(parsing: text)
            } throws: { error in
                guard case .malformed(let at, _) = error as? SDPError else { return false }
                return at == line
            }
        }
    }

    @Test func candidateLinesRoundTrip() throws {
        let line = "842163049 1 udp 1677729535 2001:db8::9 46243 typ srflx raddr 2001:db8::1 rport 46243 generation 0"
        let candidate = try #require(Candidate(sdpValue: line))
        #expect(candidate.address == TransportAddress("[2001:db8::9]:46243"))
        #expect(candidate.sdpValue == line)
        let relay = try #require(
            Candidate(sdpValue: "7 1 UDP 16777215 198.51.100.2 3478 typ relay raddr 0.0.0.0 rport 0"))
        #expect(relay.kind == .relay && relay.transport == "udp")
        let prflx = try #require(Candidate(sdpValue: "9 1 udp 1845501695 10.0.0.9 5000 typ prflx"))
        #expect(prflx.kind == .peerReflexive)
        #expect(prflx.sdpValue == "9 1 udp 1845501695 10.0.0.9 5000 typ prflx raddr 0.0.0.0 rport 0")
        #expect(Candidate(sdpValue: "1 1 udp 1 1.2.3.4 5 typ cosmic") == nil)
        #expect(Candidate(sdpValue: "1 1 udp 1 1.2.3.4 5 typ host generation") == nil)
    }

    @Test func offerHasTheShapePROTOCOLAsksFor() throws {
        let offer = SDPNegotiation.offer(local: Self.local)
        let text = offer.text
        #expect(
            text.hasPrefix("v=0\r\no=polyvoice 4242424242 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\n"))
        let parsed = try SessionDescription(parsing: text)
        #expect(!parsed.iceLite)
        let audio = try #require(parsed.media.first)
        #expect(audio.proto == "UDP/TLS/RTP/SAVPF" && audio.formats == ["111"])
        #expect(audio.rtpMaps == [RTPMap(payloadType: 111, encoding: "opus", clockRate: 48000, channels: 2)])
        #expect(audio.fmtp(111) == "minptime=10;useinbandfec=1")
        #expect(audio.rtcpMux && audio.mid == "0" && audio.setup == .actpass && audio.direction == .sendrecv)
        #expect(audio.port == 50000 && audio.connection == "IN IP4 192.168.1.10")
        #expect(audio.candidates == Self.local.candidates && audio.endOfCandidates)
        #expect(audio.fingerprints == [Self.local.fingerprint])
        #expect(audio.ssrcs == [12345])
        #expect(parsed.iceParameters?.credentials == Self.local.credentials)
    }

    @Test func answersAiortcOfferWithItsPayloadTypeAndActiveSetup() throws {
        let offer = try SessionDescription(parsing: X.aiortcOffer)
        let answer = try SDPNegotiation.answer(to: offer, local: Self.local)
        let audio = try #require(answer.media.first)
        #expect(answer.media.count == 1 && answer.bundle == ["0"])
        #expect(audio.formats == ["96"] && audio.opusPayloadType == 96)
        #expect(audio.fmtp(96) == "minptime=10;useinbandfec=1")
        #expect(audio.setup == .active && audio.direction == .sendrecv && audio.mid == "0" && audio.rtcpMux)
        #expect(try SessionDescription(parsing: answer.text) == answer)
    }

    @Test func answersPullOfferWithReceiveOnlyLineAndRejectsVideo() throws {
        let offer = try SessionDescription(parsing: X.chromePullOffer)
        var local = Self.local
        local.iceLite = false
        let answer = try SDPNegotiation.answer(to: offer, local: local, preferredSetup: .passive)
        #expect(answer.media.map(\.mid) == ["0", "1", "2"])
        #expect(answer.media.map(\.direction) == [.sendonly, .recvonly, .inactive])
        #expect(answer.media.map(\.port) == [50000, 50000, 0])
        #expect(answer.media[0].opusPayloadType == 111 && answer.media[1].opusPayloadType == 109)
        #expect(answer.media[0].setup == .passive)
        #expect(answer.media[0].ssrcs == [12345] && answer.media[1].ssrcs.isEmpty)  // nothing sent on mid 1
        #expect(answer.bundle == ["0", "1"])
    }

    @Test func setupNegotiation() {
        #expect(SDPNegotiation.answerSetup(to: .actpass, preferred: .active) == .active)
        #expect(SDPNegotiation.answerSetup(to: .actpass, preferred: .passive) == .passive)
        #expect(SDPNegotiation.answerSetup(to: .active, preferred: .active) == .passive)
        #expect(SDPNegotiation.answerSetup(to: .passive, preferred: .passive) == .active)
    }

    @Test func bridgeAnswerIsIceLiteAndOfferWithoutOpusIsRefused() throws {
        var local = Self.local
        local.iceLite = true
        let offer = SDPNegotiation.offer(local: Self.local)
        let answer = try SDPNegotiation.answer(to: offer, local: local)
        #expect(answer.iceLite && answer.iceParameters?.isLite == true)
        #expect(answer.media[0].iceOptions.isEmpty)
        let video = try SessionDescription(
            parsing: X.crlf(
                "v=0\no=- 1 1 IN IP4 0.0.0.0\ns=-\nt=0 0\nm=video 9 UDP/TLS/RTP/SAVPF 96\na=mid:0\na=rtpmap:96 VP8/90000\n"
            ))
        #expect(throws: SDPError.nothingToAccept) { try SDPNegotiation.answer(to: video, local: Self.local) }
    }

    @Test func sdpDrivesTwoAgentsToConnect() throws {
        // Offer/answer carry everything ICE needs: feed each side the other's parsed SDP.
        var net = ICETestNetwork([
            ICEAgent(configuration: ICEFixtures.configuration(seed: 1)),
            ICEAgent(configuration: ICEFixtures.configuration(mode: .lite, seed: 2)),
        ])
        net.handle(0, .gather(localAddresses: [ICEFixtures.clientAddress]))
        net.handle(1, .gather(localAddresses: [ICEFixtures.bridgeAddress]))
        func parameters(_ agent: ICEAgent, lite: Bool) -> SDPLocalParameters {
            var p = SDPLocalParameters(
                credentials: agent.localCredentials, candidates: agent.localCandidates,
                fingerprint: Self.local.fingerprint, sessionID: 1)
            p.iceLite = lite
            return p
        }
        let offer = SDPNegotiation.offer(local: parameters(net.agents[0], lite: false))
        let answer = try SDPNegotiation.answer(
            to: try SessionDescription(parsing: offer.text), local: parameters(net.agents[1], lite: true))
        net.handle(1, .remoteParameters(try #require(try SessionDescription(parsing: offer.text).iceParameters)))
        net.handle(0, .remoteParameters(try #require(try SessionDescription(parsing: answer.text).iceParameters)))
        net.run(for: .seconds(1))
        #expect(net.agents[0].selectedPair?.remote == ICEFixtures.bridgeAddress)
        #expect(net.agents[1].selectedPair?.remote == ICEFixtures.clientAddress)
    }
}
