// A real call with `VoiceOptions.networkImpairment`: the call's own packets are lost and delayed in the
// transport shell (no relay), and the receiver's statistics show it.
import Foundation
import PolyAudio
import PolyVoiceBridge
import PolyVoiceTesting
import Testing

@testable import PolyVoice

@Suite("Network impairment on a call's own packets", .serialized)
struct NetworkImpairmentCallTests {
    @Test func lossAndDelayShowInTheReceiversStatistics() async throws {
        let (bridge, port) = try EndToEndCallTests.bridge(agent: .echo(delayMilliseconds: 0))
        defer { bridge.stop() }
        let speech = try SpeechFixtures().speech(.male)
        // In: 20 % lost, 60 ms late; out: 10 % lost, 60 ms late (so the round trip gains 120 ms).
        let impairment = NetworkImpairment(
            send: .init(loss: 0.1, delay: .milliseconds(60)), receive: .init(loss: 0.2, delay: .milliseconds(60)),
            seed: 9)
        let call = try PolyVoice.call(
            config: EndToEndCallTests.config(port: port),
            options: VoiceOptions(input: .file(speech, loop: true), output: .null, networkImpairment: impairment))
        try await call.start()
        #expect(await Wait.state(of: call) { $0 == .connected } == .connected)
        try await Task.sleep(for: .seconds(6))
        let stats = await call.stats
        await call.end()

        let received = Double(stats.inboundRtp.packetsReceived)
        let lost = Double(stats.inboundRtp.packetsLost)
        let inboundLoss = lost / (received + lost)
        let rtt = try #require(stats.remoteInboundRtp.roundTripTime)
        let remoteLoss = stats.remoteInboundRtp.packetsLost.map { Double($0) / Double(stats.outboundRtp.packetsSent) }
        print(
            String(
                format: "impaired call: inbound loss %.3f (%.0f of %.0f), RTT %.0f ms, loss the bridge reports %.3f",
                inboundLoss, lost, received + lost, rtt * 1000, remoteLoss ?? -1))
        #expect(received > 150)
        // The echo's packets cross both directions: what reaches us lost ~10 % on the way out and then 20 %
        // on the way in, but the echo sends every frame it plays (concealed ones too), so only the inbound
        // 20 % shows as sequence gaps here.
        #expect(inboundLoss > 0.12 && inboundLoss < 0.28)
        #expect(rtt > 0.115)
        let reported = try #require(remoteLoss)
        #expect(reported > 0.04 && reported < 0.18)
    }

    @Test func invalidImpairmentIsAConfigurationError() throws {
        let options = VoiceOptions(input: .null, output: .null, networkImpairment: NetworkImpairment(loss: 1.5))
        let error = #expect(throws: PolyError.self) { try options.validate() }
        #expect(
            error
                == .invalidConfiguration(
                    field: "networkImpairment", reason: "send loss must be at least 0 and below 1, not 1.5"))
    }
}
