import PolyAudio
import PolyVoice
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
        #expect(PlayAgent(samples: [0], loop: false).mediaProfile == .standard)
        #expect(AgentMediaProfile.standard == AgentMediaProfile(encoderComplexity: 9, timeStretch: true))
        let custom = AgentMediaProfile(encoderComplexity: 4, timeStretch: true)
        #expect(EchoAgent(delayMilliseconds: 20, mediaProfile: custom).mediaProfile == custom)
    }
}
