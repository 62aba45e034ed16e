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
