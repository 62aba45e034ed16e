// `--agent-bitrate` / `--agent-bandwidth`: the operator's coding over the agent's media profile.
import PolyAudio
import PolyNet
import PolySession
import Testing

@testable import PolyVoiceBridge

@Suite struct AgentCodingTests {
    private func configuration(cleanPath: CleanPathCoding?) throws -> MediaEndpointConfiguration {
        var configuration = MediaEndpointConfiguration(role: .bridge, certificate: try DTLSCertificate.shared())
        configuration.encoderMaxBandwidth = .wideband
        configuration.cleanPathCoding = cleanPath
        return configuration
    }

    @Test func bothCodingModesTakeTheBitrateAndTheBand() throws {
        var echo = try configuration(cleanPath: .celtWideband)
        AgentCoding(bitrate: 128_000, maxBandwidth: .fullband).apply(to: &echo)
        #expect(echo.codec.bitrate == 128_000)
        // FEC's third may still come on top; the maximum never holds the bitrate itself down.
        #expect(echo.codec.maximumBitrate == 128_000)
        #expect(echo.encoderMaxBandwidth == .fullband)
        #expect(echo.cleanPathCoding?.bitrate == 128_000 && echo.cleanPathCoding?.maxBandwidth == .fullband)
        // Its application and complexity stay the profile's.
        #expect(echo.cleanPathCoding?.complexity == CleanPathCoding.celtWideband.complexity)

        var play = try configuration(cleanPath: nil)
        AgentCoding(bitrate: 24_000).apply(to: &play)
        #expect(play.codec.bitrate == 24_000 && play.codec.maximumBitrate == CodecSettings().maximumBitrate)
        #expect(play.encoderMaxBandwidth == .wideband && play.cleanPathCoding == nil)
    }

    @Test func aLossHintIsPinnedForTheWholeCall() throws {
        var configuration = try configuration(cleanPath: .celtWideband)
        AgentCoding(lossHintPercent: 5).apply(to: &configuration)
        #expect(configuration.pinnedLossHintPercent == 5)
        var followed = try self.configuration(cleanPath: nil)
        AgentCoding(bitrate: 24_000).apply(to: &followed)
        #expect(followed.codec.expectedLossPercent == CodecSettings().expectedLossPercent)
        #expect(followed.pinnedLossHintPercent == nil)
    }

    @Test func noOverrideLeavesTheProfilesChoice() throws {
        var configuration = try configuration(cleanPath: .celtWideband)
        let before = configuration
        AgentCoding().apply(to: &configuration)
        #expect(configuration.codec == before.codec)
        #expect(configuration.encoderMaxBandwidth == before.encoderMaxBandwidth)
        #expect(configuration.cleanPathCoding == before.cleanPathCoding)
        #expect(BridgeConfiguration().agentCoding == AgentCoding())
    }

    @Test func bandwidthsAreNamedAsTheOptionTakesThem() {
        #expect(AgentCoding.bandwidth(named: "fullband") == .fullband)
        #expect(AgentCoding.bandwidth(named: "wideband") == .wideband)
        #expect(AgentCoding.bandwidth(named: "Fullband") == nil && AgentCoding.bandwidth(named: "20k") == nil)
        #expect(AgentCoding.bandwidthNames == "narrowband, mediumband, wideband, superwideband, fullband")
    }
}
