// Outages, address changes and events-socket drops, in virtual time.
import PolyCore
import Testing

@testable import PolyVoice

@Suite("Call state machine: reconnect")
struct ReconnectTests {
    /// A connected call that has had 3 s of media.
    func connectedCall(
        _ capabilities: BridgeCapabilities = BridgeCapabilities(), policy: CallPolicy = CallPolicy(), seed: UInt64 = 7
    ) -> CallDriver {
        var call = CallDriver(policy: policy, seed: seed)
        call.connect(capabilities)
        call.flowMedia(for: .seconds(3))
        _ = call.takeActions()
        return call
    }

    @Test("5 s outage, same address: reconnecting after 2 s of silence, connected when media flows again")
    func sameAddressOutage() {
        var call = connectedCall()
        let firstState = call.states.count
        let outageStart = call.now
        call.advance(by: .seconds(5))
        let back = call.now
        call.send(.mediaFlowing)
        let states = call.states[firstState...]
        #expect(states.first?.0 == .reconnecting(attempt: 1))
        // Silence is measured from the last inbound packet (reported at the outage's start).
        #expect(states.first?.1 == outageStart + .seconds(2))
        #expect(states.last?.0 == .connected)
        #expect(states.last?.1 == back)
        let attempts = states.compactMap { if case .reconnecting(let n) = $0.0 { n } else { nil } }
        #expect(attempts == Array(1...attempts.count))
        #expect(attempts.count >= 3)
        let actions = call.takeActions()
        #expect(Set(actions) == [.keepChecking])
        #expect(actions.count == attempts.count)
        call.flowMedia(for: .seconds(60))
        #expect(call.state == .connected)
    }

    @Test("ICE disconnected starts reconnecting at once; ICE failed with the same address keeps checking")
    func iceDisconnected() {
        var call = connectedCall()
        call.send(.iceDisconnected)
        #expect(call.state == .reconnecting(attempt: 1))
        call.send(.iceFailed)
        #expect(call.state == .reconnecting(attempt: 1))
        call.advance(by: .seconds(10))
        call.send(.mediaFlowing)
        #expect(call.state == .connected)
    }

    @Test("Outage longer than the reconnect timeout fails with voice(.disconnected) exactly at the timeout")
    func outageTooLong() {
        var call = connectedCall(policy: CallPolicy(reconnectTimeout: .seconds(30)))
        let lastMedia = call.now
        call.advance(by: .seconds(40))
        #expect(call.state == .failed(.voice(.disconnected)))
        #expect(call.states.last?.1 == lastMedia + .seconds(2) + .seconds(30))
        #expect(call.takeActions().suffix(3) == [.closeEventsSocket, .closeMedia, .deleteCall])
        call.send(.mediaFlowing)
        #expect(call.state == .failed(.voice(.disconnected)))
    }

    @Test("Address change with the iceRestartUrl extension: ICE restart, then connected when media flows")
    func addressChangeRestart() {
        var call = connectedCall(BridgeCapabilities(supportsICERestart: true))
        call.send(.localAddressChanged)
        #expect(call.state == .reconnecting(attempt: 1))
        #expect(call.takeActions() == [.iceRestart])
        // Stragglers on the old path do not count until the restart is answered.
        call.send(.mediaFlowing)
        #expect(call.state == .reconnecting(attempt: 1))
        call.advance(by: .milliseconds(80))
        call.send(.iceRestartAnswered)
        call.send(.iceConnected)
        #expect(call.state == .reconnecting(attempt: 1))
        call.advance(by: .milliseconds(20))
        call.send(.mediaFlowing)
        #expect(call.state == .connected)
        #expect(!call.takeActions().contains(.iceRestart))
    }

    @Test("Address change with both extensions: ICE restart and the events socket reopened at once")
    func addressChangeReopensEvents() {
        var call = connectedCall(BridgeCapabilities(supportsICERestart: true, resumeGrace: .seconds(10)))
        call.send(.localAddressChanged)
        #expect(call.state == .reconnecting(attempt: 1))
        #expect(call.takeActions() == [.iceRestart, .reopenEventsSocket])
        call.advance(by: .milliseconds(80))
        call.send(.iceRestartAnswered)
        call.send(.mediaFlowing)
        #expect(call.state == .reconnecting(attempt: 1))  // the events socket is not back yet
        call.send(.eventsSocketOpened)
        #expect(call.state == .connected)
        // Without the resume extension the open socket is left alone (reopening may be refused).
        var plain = connectedCall(BridgeCapabilities(supportsICERestart: true))
        plain.send(.localAddressChanged)
        #expect(plain.takeActions() == [.iceRestart])
    }

    @Test("A failed ICE restart request is retried at the next attempt")
    func restartRetried() {
        var call = connectedCall(BridgeCapabilities(supportsICERestart: true))
        call.send(.localAddressChanged)
        call.send(.stepFailed(.iceRestart, .transport("network unreachable")))
        #expect(call.state == .reconnecting(attempt: 1))
        call.advance(by: ReconnectBackoff().ceiling(afterAttempt: 1))
        #expect(call.state == .reconnecting(attempt: 2))
        #expect(call.takeActions() == [.iceRestart, .iceRestart])
        call.send(.iceRestartAnswered)
        call.send(.mediaFlowing)
        #expect(call.state == .connected)
    }

    @Test("Address change without the extension: keep checking; connected if another pair works")
    func addressChangeNoExtensionRecovers() {
        var call = connectedCall()
        call.send(.localAddressChanged)
        #expect(call.takeActions() == [.keepChecking])
        call.advance(by: .seconds(1))
        call.send(.mediaFlowing)
        #expect(call.state == .connected)
    }

    @Test("Address change without the extension: fails clearly once every pair failed")
    func addressChangeNoExtensionFails() {
        var call = connectedCall()
        call.send(.localAddressRemoved)
        call.send(.localAddressChanged)
        call.advance(by: .seconds(3))
        call.send(.iceFailed)
        guard case .failed(.voice(.mediaFailed(let reason))) = call.state else {
            Issue.record("expected a media failure, got \(call.state)")
            return
        }
        #expect(reason.contains("ICE restart"))
        #expect(!call.takeActions().contains(.iceRestart))
    }

    @Test("Events socket drop: reopen and re-auth, media keeps flowing, connected again")
    func eventsDropResume() {
        var call = connectedCall(BridgeCapabilities(resumeGrace: .seconds(10)))
        call.send(.eventsSocketDropped(code: 1006))
        #expect(call.state == .reconnecting(attempt: 1))
        #expect(call.takeActions() == [.reopenEventsSocket])
        call.flowMedia(for: .milliseconds(300))
        call.send(.eventsSocketOpened)
        #expect(call.state == .connected)
        call.flowMedia(for: .seconds(10))
        #expect(call.state == .connected)
    }

    @Test("Events socket: with resumeGraceSeconds, reopen is retried with backoff until the grace ends")
    func eventsGraceExpires() {
        var call = connectedCall(BridgeCapabilities(resumeGrace: .seconds(10)))
        let dropped = call.now
        call.send(.eventsSocketDropped(code: 1006))
        for _ in 0..<200 {
            if call.takeActions().contains(.reopenEventsSocket) { call.send(.eventsSocketDropped(code: 1006)) }
            call.flowMedia(for: .milliseconds(100))
            if call.state.isTerminal { break }
        }
        #expect(call.state == .failed(.voice(.disconnected)))
        #expect(call.states.last?.1 == dropped + .seconds(10))
        #expect(call.states.count > 4)
    }

    @Test("Events socket without the extension: one reopen, then a clear failure")
    func eventsNoExtension() {
        var call = connectedCall()
        call.send(.eventsSocketDropped(code: 1006))
        #expect(call.takeActions() == [.reopenEventsSocket])
        call.send(.eventsSocketDropped(code: 1006))
        guard case .failed(.voice(.signalingFailed(let reason))) = call.state else {
            Issue.record("expected a signaling failure, got \(call.state)")
            return
        }
        #expect(reason.contains("resum"))
        #expect(call.takeActions() == [.closeMedia, .deleteCall])
    }

    @Test("Events socket without the extension: the one reopen may succeed")
    func eventsNoExtensionReopens() {
        var call = connectedCall()
        call.send(.eventsSocketDropped(code: 1001))
        call.send(.eventsSocketOpened)
        #expect(call.state == .connected)
    }

    @Test("Media and events down together: connected only when both are back")
    func bothDown() {
        var call = connectedCall(BridgeCapabilities(resumeGrace: .seconds(20)))
        call.advance(by: .seconds(2))
        #expect(call.state == .reconnecting(attempt: 1))
        call.send(.eventsSocketDropped(code: 1006))
        #expect(call.takeActions() == [.keepChecking, .reopenEventsSocket])
        call.send(.mediaFlowing)
        #expect(call.state == .reconnecting(attempt: 1))
        call.send(.eventsSocketOpened)
        #expect(call.state == .connected)
    }

    @Test("A repull during an outage is run once connected again")
    func repullDuringOutage() {
        var call = connectedCall()
        call.send(.iceDisconnected)
        call.send(.bridgeEvent(.repull))
        #expect(!call.takeActions().contains(.pull))
        call.send(.mediaFlowing)
        #expect(call.takeActions() == [.pull])
    }

    @Test("Attempts are spaced by the backoff: each gap lies within its jittered bounds")
    func backoffInMachine() {
        let backoff = ReconnectBackoff()
        var call = connectedCall(policy: CallPolicy(reconnectTimeout: .seconds(60)), seed: 42)
        call.advance(by: .seconds(50))
        let attempts = call.states.filter { if case .reconnecting = $0.0 { true } else { false } }
        #expect(attempts.count > 10)
        for (index, pair) in zip(attempts, attempts.dropFirst()).enumerated() {
            let gap = pair.1.1 - pair.0.1
            #expect(backoff.bounds(afterAttempt: index + 1).contains(gap), "gap \(index + 1): \(gap)")
        }
    }

    @Test("Backoff sequence: capped exponential ceilings, jittered delays within bounds, seeded")
    func backoffSequence() {
        let backoff = ReconnectBackoff(initial: .milliseconds(250), multiplier: 2, maximum: .seconds(4), jitter: 0.5)
        let ceilings = (1...8).map { backoff.ceiling(afterAttempt: $0) }
        #expect(
            ceilings == [
                .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(4), .seconds(4),
                .seconds(4),
            ])
        #expect(backoff.bounds(afterAttempt: 3) == .milliseconds(500)...(.seconds(1)))
        var random = SeededRandom(seed: 1)
        var delays: [Duration] = []
        for attempt in 1...1000 {
            let delay = backoff.delay(afterAttempt: attempt % 12 + 1, using: &random)
            #expect(backoff.bounds(afterAttempt: attempt % 12 + 1).contains(delay))
            delays.append(delay)
        }
        #expect(Set(delays).count > 900, "jitter must spread the delays")
        var again = SeededRandom(seed: 1)
        #expect(backoff.delay(afterAttempt: 2, using: &again) == delays[0])
    }
}

@Suite("Call state machine: failed steps")
struct FailedStepTests {
    func connected(_ capabilities: BridgeCapabilities = BridgeCapabilities()) -> CallDriver {
        var call = CallDriver()
        call.connect(capabilities)
        _ = call.takeActions()
        return call
    }

    @Test("A pull failing during an outage is retried after recovery, not fatal")
    func pullFailsDuringOutage() {
        var call = connected()
        call.send(.bridgeEvent(.repull))
        call.send(.iceDisconnected)
        call.send(.stepFailed(.pull, .transport("timed out")))
        #expect(call.state == .reconnecting(attempt: 1))
        call.send(.mediaFlowing)
        #expect(call.state == .connected)
        #expect(call.takeActions() == [.pull, .keepChecking, .pull])
    }

    @Test("A non-retryable ICE restart failure fails the call")
    func restartRejected() {
        var call = connected(BridgeCapabilities(supportsICERestart: true))
        call.send(.localAddressChanged)
        let error = PolyError.auth(.perCallTokenRejected)
        call.send(.stepFailed(.iceRestart, error))
        #expect(call.state == .failed(error))
    }

    @Test("Failures of the best-effort DELETE are ignored; a failed events open counts as a drop")
    func deleteAndEvents() {
        var call = connected(BridgeCapabilities(resumeGrace: .seconds(5)))
        call.send(.stepFailed(.deleteCall, .transport("reset")))
        #expect(call.state == .connected)
        call.send(.eventsSocketDropped(code: 1006))
        call.send(.stepFailed(.reopenEventsSocket, .transport("refused")))
        #expect(call.state == .reconnecting(attempt: 1))
        call.send(.stepFailed(.reopenEventsSocket, .auth(.perCallTokenRejected)))
        #expect(call.state == .failed(.auth(.perCallTokenRejected)))
    }
}
