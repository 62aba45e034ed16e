// RFC 4733 telephone-event in offers and answers: offered at 48 kHz on the Opus line, answered when offered
// (and wanted), absent otherwise; other clock rates are not usable on an Opus stream.
import Testing

@testable import PolyNet

@Suite struct SDPTelephoneEventTests {
    @Test func anOfferWithTelephoneEventCarriesItsFormatRtpmapAndFmtp() throws {
        let offer = SDPNegotiation.offer(local: SDPTests.local, telephoneEvent: 110)
        let audio = try #require(offer.media.first)
        #expect(audio.formats == ["111", "110"])
        #expect(audio.telephoneEventPayloadType == 110 && audio.opusPayloadType == 111)
        #expect(offer.text.contains("a=rtpmap:110 telephone-event/48000\r\na=fmtp:110 0-15\r\n"))
        // It survives a round trip through the parser.
        #expect(try SessionDescription(parsing: offer.text).media[0].telephoneEventPayloadType == 110)
        #expect(SDPNegotiation.offer(local: SDPTests.local).media[0].telephoneEventPayloadType == nil)
    }

    @Test func theAnswerAcceptsTelephoneEventOnlyWhenOfferedAndWanted() throws {
        let offer = try SessionDescription(
            parsing: SDPNegotiation.offer(local: SDPTests.local, telephoneEvent: 101).text)
        let answer = try SDPNegotiation.answer(to: offer, local: SDPTests.local)
        #expect(answer.media[0].telephoneEventPayloadType == 101)
        #expect(answer.media[0].formats == ["111", "101"])
        let refused = try SDPNegotiation.answer(to: offer, local: SDPTests.local, acceptTelephoneEvent: false)
        #expect(refused.media[0].telephoneEventPayloadType == nil && refused.media[0].formats == ["111"])
        let plain = try SDPNegotiation.answer(to: SDPNegotiation.offer(local: SDPTests.local), local: SDPTests.local)
        #expect(plain.media[0].telephoneEventPayloadType == nil)
    }

    @Test func onlyThe48kHzClockCounts() throws {
        // Chrome offers both; the 8 kHz one cannot share an Opus stream's timestamps.
        let text = SDPNegotiation.offer(local: SDPTests.local).text.replacingOccurrences(
            of: "a=fmtp:111 minptime=10;useinbandfec=1\r\n",
            with: "a=fmtp:111 minptime=10;useinbandfec=1\r\na=rtpmap:126 telephone-event/8000\r\n")
        let offer = try SessionDescription(parsing: text)
        #expect(offer.media[0].telephoneEventPayloadType == nil)
        #expect(try SDPNegotiation.answer(to: offer, local: SDPTests.local).media[0].telephoneEventPayloadType == nil)
    }
}
