// The sender's policy, sans-IO: each far-end fmtp parameter, the bitrate raised while FEC is in use, and the
// application's explicit settings kept.
import PolyAudio
import PolyNet
import Testing

@testable import PolySession

@Suite struct SenderCodecPolicyTests {
    private func policy(_ codec: CodecSettings = CodecSettings(), remote: String = "") -> SenderCodecPolicy {
        var policy = SenderCodecPolicy(codec: codec, localMaxBandwidth: codec.maxBandwidth)
        _ = policy.takeRemote(OpusFormatParameters(parsing: Substring(remote)), lossPercent: 0)
        return policy
    }

    @Test func defaultsAreTheMeasuredChoice() {
        let sender = policy()
        #expect(sender.bitrate(lossPercent: 0) == 48_000 && sender.maxBandwidth == .wideband)
        #expect(sender.forwardErrorCorrection && !sender.dtx && !sender.forceMono)
    }

    @Test func maxaveragebitrateCapsTheTargetAlsoUnderLoss() {
        let sender = policy(remote: "maxaveragebitrate=24000")
        #expect(sender.bitrate(lossPercent: 0) == 24_000 && sender.bitrate(lossPercent: 5) == 24_000)
        #expect(policy(remote: "maxaveragebitrate=510000").bitrate(lossPercent: 5) == 64_000)
    }

    @Test func maxplaybackrateNarrowsTheBandButNeverWidensIt() {
        #expect(policy(remote: "maxplaybackrate=8000").maxBandwidth == .narrowband)
        #expect(policy(remote: "maxplaybackrate=12000").maxBandwidth == .mediumband)
        #expect(policy(remote: "maxplaybackrate=16000").maxBandwidth == .wideband)
        #expect(policy(remote: "maxplaybackrate=48000").maxBandwidth == .wideband)
        let fullband = CodecSettings(maxBandwidth: nil)
        #expect(policy(fullband, remote: "maxplaybackrate=24000").maxBandwidth == .superwideband)
        #expect(policy(fullband, remote: "maxplaybackrate=48000").maxBandwidth == .fullband)
        #expect(policy(fullband).maxBandwidth == nil)
    }

    @Test func spropMaxcapturerateIsAboutTheirStreamAndLeavesOursAlone() {
        let sender = policy(remote: "sprop-maxcapturerate=8000")
        #expect(sender.remote.maxCaptureRate == 8000)
        #expect(sender.maxBandwidth == .wideband && sender.bitrate(lossPercent: 0) == 48_000)
    }

    @Test func useinbandfecZeroTurnsFECAndItsBitrateRaiseOff() {
        let sender = policy(remote: "useinbandfec=0")
        #expect(!sender.forwardErrorCorrection && sender.bitrate(lossPercent: 10) == 48_000)
        // useinbandfec=1 cannot turn on what the application turned off.
        #expect(!policy(CodecSettings(forwardErrorCorrection: false), remote: "useinbandfec=1").forwardErrorCorrection)
    }

    @Test func usedtxOneAsksForDTXAndAnExplicitDTXStays() {
        #expect(policy(remote: "usedtx=1").dtx)
        #expect(!policy(remote: "usedtx=0").dtx)
        #expect(policy(CodecSettings(discontinuousTransmission: true), remote: "usedtx=0").dtx)
    }

    @Test func stereoZeroForcesAStereoEncoderToMono() {
        #expect(policy(CodecSettings(channels: 2), remote: "stereo=0").forceMono)
        #expect(!policy(CodecSettings(channels: 2), remote: "stereo=1").forceMono)
        #expect(!policy(CodecSettings(channels: 1), remote: "stereo=0").forceMono)
    }

    @Test func theBitrateRisesByAThirdWhileFECSpendsBitsWithinTheCaps() {
        let sender = policy()
        #expect(sender.bitrate(lossPercent: 1) == 64_000 && sender.bitrate(lossPercent: 20) == 64_000)
        // Explicit settings are kept: no raise when adaptation is off, no cut of a bitrate above the maximum.
        #expect(policy(CodecSettings(adaptiveBitrate: false)).bitrate(lossPercent: 10) == 48_000)
        #expect(policy(CodecSettings(bitrate: 128_000)).bitrate(lossPercent: 10) == 128_000)
        #expect(policy(CodecSettings(bitrate: 90_000)).bitrate(lossPercent: 10) == 96_000)
    }

    @Test func takeRemoteSaysWhetherAnythingChanged() {
        var sender = SenderCodecPolicy(codec: CodecSettings(), localMaxBandwidth: .wideband)
        let same = sender.takeRemote(OpusFormatParameters(parsing: "minptime=10;useinbandfec=1"), lossPercent: 0)
        let capped = sender.takeRemote(OpusFormatParameters(parsing: "maxaveragebitrate=20000"), lossPercent: 0)
        let again = sender.takeRemote(OpusFormatParameters(parsing: "maxaveragebitrate=20000"), lossPercent: 0)
        #expect(!same && capped && !again)
    }
}
