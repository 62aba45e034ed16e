// The far end's Opus `a=fmtp` (RFC 7587 §6.1): each parameter read, bad values ignored as if absent, numbers
// clamped into RFC 7587's ranges, and the parameters of the section's own Opus payload type only.
import Testing

@testable import PolyNet

@Suite struct OpusFormatParametersTests {
    @Test func eachParameterIsRead() {
        let all = OpusFormatParameters(
            parsing: "minptime=10;useinbandfec=1;usedtx=1;stereo=0;maxaveragebitrate=20000;"
                + "maxplaybackrate=16000;sprop-maxcapturerate=24000")
        #expect(all.inbandFEC == true && all.dtx == true && all.stereo == false)
        #expect(all.maxAverageBitrate == 20_000 && all.maxPlaybackRate == 16_000 && all.maxCaptureRate == 24_000)
        let none = OpusFormatParameters(parsing: "minptime=10")
        #expect(none == OpusFormatParameters())
        let off = OpusFormatParameters(parsing: " useinbandfec = 0 ; usedtx=0;STEREO=1")
        #expect(off.inbandFEC == false && off.dtx == false && off.stereo == true)
    }

    @Test func badValuesAreAsIfAbsentAndNumbersAreClamped() {
        let bad = OpusFormatParameters(
            parsing: "useinbandfec=yes;usedtx=;stereo=2;maxaveragebitrate=-5;maxplaybackrate=99999999999999;"
                + "sprop-maxcapturerate=4.8e4;=1;;maxaveragebitrate")
        #expect(bad == OpusFormatParameters())
        let clamped = OpusFormatParameters(parsing: "maxaveragebitrate=1000;maxplaybackrate=96000")
        #expect(clamped.maxAverageBitrate == 6000 && clamped.maxPlaybackRate == 48_000)
        let huge = OpusFormatParameters(parsing: "maxaveragebitrate=999999999")
        #expect(huge.maxAverageBitrate == 510_000)
    }

    @Test func theSectionsOwnOpusPayloadTypeIsRead() throws {
        var audio = MediaDescription(formats: ["96", "111"])
        audio.attributes = [
            SDPAttribute("rtpmap", "96 opus/48000/2"), SDPAttribute("fmtp", "96 maxplaybackrate=8000"),
            SDPAttribute("fmtp", "111 maxplaybackrate=48000;usedtx=1"),
        ]
        #expect(audio.opusFormatParameters == OpusFormatParameters(maxPlaybackRate: 8000))
        #expect(MediaDescription(formats: ["0"]).opusFormatParameters == OpusFormatParameters())
    }
}
