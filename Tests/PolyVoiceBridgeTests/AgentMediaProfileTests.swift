import PolyAudio
import Testing

@testable import PolyVoiceBridge

@Suite struct AgentMediaProfileTests {
    @Test func echoAsksForTheServerProfileAndAudioAgentsForTheStandardOne() {
        #expect(EchoAgent().mediaProfile == .server)
        #expect(AgentMediaProfile.server.encoderComplexity < AgentMediaProfile.standard.encoderComplexity)
        #expect(AgentMediaProfile.server.encoderMaxBandwidth == .wideband)
        #expect(!AgentMediaProfile.server.timeStretch)
        #expect(AgentMediaProfile.server.cleanPathCoding == .celtWideband)
        #expect(AgentMediaProfile.standard.cleanPathCoding == nil)
        // Both of the server profile's modes code wideband: its audio is at 16 kHz, the others' at 48 kHz.
        #expect(AgentMediaProfile.server.sampleRate == 16_000)
        #expect(AgentMediaProfile.standard.sampleRate == AgentAudio.sampleRate)
        #expect(PlayAgent(samples: [0], loop: false).mediaProfile == .standard)
        #expect(AgentMediaProfile.standard == AgentMediaProfile(encoderComplexity: 9, timeStretch: true))
        let custom = AgentMediaProfile(encoderComplexity: 4, timeStretch: true)
        #expect(EchoAgent(delayMilliseconds: 20, mediaProfile: custom).mediaProfile == custom)
    }
}

@Suite struct EchoProfileTests {
    @Test func faithfulIsTheDefaultAndEconomyCodesTheCleanPathCheaper() throws {
        #expect(BridgeConfiguration().agentProfile == .faithful)
        #expect(EchoProfile.faithful.mediaProfile == .server)
        let faithful = try #require(AgentMediaProfile.server.cleanPathCoding?.bitrate)
        let economy = try #require(AgentMediaProfile.economy.cleanPathCoding?.bitrate)
        #expect(faithful == 64_000 && economy == 32_000)
        #expect(AgentMediaProfile.economy.sampleRate == AgentMediaProfile.server.sampleRate)
        // The template hands each echo call the chosen profile; other agents keep theirs.
        for profile in EchoProfile.allCases {
            let template = try AgentTemplate(.echo(delayMilliseconds: 0), echoProfile: profile)
            #expect(template.makeAgent(callID: "c", recordDirectory: nil).mediaProfile == profile.mediaProfile)
        }
        #expect(EchoProfile(rawValue: "economy") == .economy && EchoProfile(rawValue: "cheap") == nil)
    }
}
