import PolyCore
import Testing

@testable import PolyVoice

/// A bridge restarted mid-call (issue 19) accepts the WebSocket handshake of the reopened events socket,
/// then refuses its auth frame with 1008 because it no longer knows the call: the call must fail at once
/// with the documented signaling error, and a reopened socket that drops again must wait for the next
/// attempt instead of reopening in a tight loop.
@Suite struct EventsReopenRefusedTests {
    static func outage(_ capabilities: BridgeCapabilities) -> CallDriver {
        var call = CallDriver(seed: 7)
        call.connect(capabilities)
        call.flowMedia(for: .seconds(3))
        // The bridge process dies: media stops (reconnecting after 2 s of silence), its socket closes.
        call.advance(by: .milliseconds(2100))
        #expect(call.state == .reconnecting(attempt: 1))
        _ = call.takeActions()
        call.send(.eventsSocketDropped(code: 1006))
        #expect(call.takeActions() == [.reopenEventsSocket])  // the first drop: reopened at once
        return call
    }

    @Test func aRefusalOnTheReopenedOpenSocketFailsTheCall() {
        var call = Self.outage(BridgeCapabilities(resumeGrace: .seconds(10)))
        call.send(.eventsSocketOpened)  // the restarted bridge's handshake
        call.send(.eventsSocketDropped(code: 1008))  // its answer to the auth frame
        #expect(
            call.state == .failed(.voice(.signalingFailed("The bridge refused to resume the call's events socket"))))
        #expect(call.takeActions() == [.closeEventsSocket, .closeMedia, .deleteCall])
    }

    @Test func aReopenedSocketThatDropsAgainIsReopenedOnlyAtTheNextAttempts() {
        var call = Self.outage(BridgeCapabilities(resumeGrace: .seconds(10)))
        var reopens = 0
        for _ in 0..<400 {
            call.send(.eventsSocketOpened)
            call.send(.eventsSocketDropped(code: 1006))
            // Not at once: only the attempt timer reopens.
            #expect(!call.takeActions().contains(.reopenEventsSocket))
            call.advance(by: .milliseconds(100))
            reopens += call.takeActions().filter { $0 == .reopenEventsSocket }.count
            if call.state.isTerminal { break }
        }
        // Each open restarts the events grace, so the 30 s reconnect timeout ends it; in between, the attempts'
        // backoff paces the reopens: a few dozen at most, not one per drop (hundreds before the fix).
        #expect(reopens >= 2 && reopens <= 40, "reopened \(reopens) times")
        #expect(call.state == .failed(.voice(.disconnected)))
    }

    @Test func aRefusalAfterTheBridgeSpokeOnTheSocketIsNotTakenForAResumeRefusal() {
        var call = Self.outage(BridgeCapabilities(resumeGrace: .seconds(10)))
        call.send(.eventsSocketOpened)
        call.send(.bridgeEvent(.unmute))  // the bridge accepted the socket and talks on it
        call.send(.eventsSocketDropped(code: 1008))
        guard case .reconnecting = call.state else {
            Issue.record("expected reconnecting, got \(call.state)")
            return
        }
        #expect(!call.takeActions().contains(.reopenEventsSocket))
    }
}
