import PolyCore
import Testing

@testable import PolyNet

/// An agent skips its timer checks between deadlines when nothing arrived: a media shell polling it
/// every 20 ms must see exactly what one polling only at deadlines and arrivals sees.
@Suite struct ICEIdlePollTests {
    @Test func pollingEvery20msChangesNothing() {
        var atDeadlines = ICEAgentTests.clientAndBridge()
        var every20ms = ICEAgentTests.clientAndBridge()
        atDeadlines.run(for: .seconds(20))
        for _ in 0..<1000 { every20ms.run(for: .milliseconds(20)) }
        #expect(every20ms.now == atDeadlines.now)
        for index in 0..<2 {
            #expect(every20ms.sent[index].map(\.at) == atDeadlines.sent[index].map(\.at))
            #expect(every20ms.sent[index].map(\.bytes) == atDeadlines.sent[index].map(\.bytes))
            #expect(every20ms.states(index) == atDeadlines.states(index))
        }
        // Consent checks (every 4–6 s) kept going out after the pair was selected.
        #expect(every20ms.sent[0].filter { $0.at > .seconds(1) }.count >= 3)
    }

    @Test func anIdleAgentStillDisconnectsOnTimeWhenPolledOften() throws {
        var net = ICEAgentTests.clientAndBridge()
        net.run(for: .seconds(1))
        net.drop = { _ in true }
        for _ in 0..<500 { net.run(for: .milliseconds(20)) }
        let disconnected = try #require(net.firstTime(0, of: .disconnected))
        #expect(disconnected >= .seconds(7) && disconnected <= .seconds(9.1))
        let bridgeDisconnected = try #require(net.firstTime(1, of: .disconnected))
        #expect(bridgeDisconnected <= .seconds(9.1))
    }
}
