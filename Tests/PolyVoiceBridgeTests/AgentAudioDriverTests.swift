import PolyCore
import Testing

@testable import PolyVoiceBridge

@Suite struct AgentAudioDriverTests {
    /// Sends a frame through the driver (as the transport's sink) and reads the agent's answer (as its source).
    private func roundTrip(_ driver: AgentAudioDriver, _ inbound: [Int16], readCount: Int) -> [Int16] {
        inbound.withUnsafeBufferPointer { driver.write($0) }
        var outbound = [Int16](repeating: 7, count: readCount)
        outbound.withUnsafeMutableBufferPointer { _ = driver.read(into: $0) }
        return outbound
    }

    @Test func framesAreTwentyMillisecondsAtTheAgentsRate() {
        let echo = AgentAudioDriver(agent: EchoAgent(), emit: { _ in }, onTick: { _ in })
        let frame = (0..<320).map { Int16($0 * 50 - 8000) }  // 20 ms at the server profile's 16 kHz
        #expect(roundTrip(echo, frame, readCount: 320) == frame)
        // A frame of another size is not the agent's format: the agent hears silence instead.
        #expect(roundTrip(echo, Frames.tone(1), readCount: 320).allSatisfy { $0 == 0 })

        let standard = AgentAudioDriver(
            agent: EchoAgent(mediaProfile: .standard), emit: { _ in }, onTick: { _ in })
        #expect(roundTrip(standard, Frames.tone(2), readCount: 960) == Frames.tone(2))
    }
}
