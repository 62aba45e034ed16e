// The call-state machine's set-up, endings and bridge events, in virtual time.
import PolyCore
import Testing

@testable import PolyVoice

@Suite("Call state machine: set-up and endings")
struct CallStateMachineTests {
    @Test("Happy path: provision, offer, DTLS, pull, events; end tears down in PROTOCOL order")
    func happyPath() {
        var call = CallDriver()
        call.connect()
        #expect(call.stateList() == [.connecting, .connected])
        #expect(call.takeActions() == [.provision, .sendOffer, .pull, .answerPull, .openEventsSocket])
        call.flowMedia(for: .seconds(60))
        #expect(call.state == .connected)
        call.send(.end)
        #expect(call.takeActions() == [.closeEventsSocket, .closeMedia, .deleteCall])
        #expect(call.stateList().last == .ended)
        #expect(call.machine.nextDeadline() == nil)
    }

    @Test("A bridge without pull or events URLs connects without them")
    func minimalBridge() {
        var call = CallDriver()
        call.connect(BridgeCapabilities(hasPull: false, hasEvents: false))
        #expect(call.state == .connected)
        #expect(call.takeActions() == [.provision, .sendOffer])
        call.send(.bridgeEvent(.repull))
        #expect(call.takeActions().isEmpty)
    }

    @Test("Wrong web calling token fails with auth(.unauthorized) and nothing to tear down")
    func wrongToken() {
        var call = CallDriver()
        call.send(.start)
        #expect(call.takeActions() == [.provision])
        call.send(.stepFailed(.provision, .auth(.unauthorized)))
        #expect(call.state == .failed(.auth(.unauthorized)))
        #expect(call.takeActions().isEmpty)
        call.send(.end)
        #expect(call.state == .failed(.auth(.unauthorized)))
        #expect(call.takeActions().isEmpty)
    }

    @Test("No media connected within 30 s fails with voice(.timedOut), exactly at the deadline")
    func connectTimeout() {
        var call = CallDriver()
        call.send(.start)
        call.send(.provisioned(BridgeCapabilities()))
        call.send(.offerAnswered)
        call.advance(by: .milliseconds(29_999))
        #expect(call.state == .connecting)
        call.advance(by: .milliseconds(1))
        #expect(call.state == .failed(.voice(.timedOut)))
        #expect(call.states.last?.1 == .seconds(30))
        #expect(call.takeActions() == [.provision, .sendOffer, .closeMedia, .deleteCall])
    }

    @Test("ICE failing while connecting fails the call as a media failure")
    func iceFailsWhileConnecting() {
        var call = CallDriver()
        call.send(.start)
        call.send(.provisioned(BridgeCapabilities()))
        call.send(.iceFailed)
        guard case .failed(.voice(.mediaFailed)) = call.state else {
            Issue.record("expected mediaFailed, got \(call.state)")
            return
        }
    }

    @Test("A second start while active does nothing")
    func doubleStart() {
        var call = CallDriver()
        call.send(.start)
        call.send(.start)
        #expect(call.takeActions() == [.provision])
        #expect(call.stateList() == [.connecting])
        call.send(.provisioned(BridgeCapabilities()))
        call.send(.dtlsConnected)
        _ = call.takeActions()
        call.send(.start)
        #expect(call.takeActions().isEmpty)
        #expect(call.stateList() == [.connecting, .connected])
    }

    @Test("A call that ended cannot start again")
    func noRestartAfterEnd() {
        var call = CallDriver()
        call.send(.end)
        call.send(.start)
        #expect(call.state == .ended)
        #expect(call.takeActions().isEmpty)
    }

    /// How far a call gets before `end()`, and the teardown that must follow.
    enum Stage: CaseIterable {
        case idle, provisioning, offering, pulling, connected, reconnecting, ended, failed

        var expectedTeardown: [CallAction] {
            switch self {
            case .idle, .provisioning, .ended, .failed: []
            case .offering, .pulling: [.closeMedia, .deleteCall]
            case .connected, .reconnecting: [.closeEventsSocket, .closeMedia, .deleteCall]
            }
        }
    }

    @Test("end() in every state: teardown once, in order, then ended (terminal states stay)", arguments: Stage.allCases)
    func endInEveryState(stage: Stage) {
        var call = CallDriver()
        switch stage {
        case .idle: break
        case .provisioning: call.send(.start)
        case .offering:
            call.send(.start)
            call.send(.provisioned(BridgeCapabilities()))
        case .pulling:
            call.send(.start)
            call.send(.provisioned(BridgeCapabilities()))
            call.send(.dtlsConnected)
        case .connected: call.connect()
        case .reconnecting:
            call.connect()
            call.send(.iceDisconnected)
        case .ended:
            call.connect()
            call.send(.remoteHangup)
        case .failed:
            call.send(.start)
            call.send(.stepFailed(.provision, .transport("connection refused")))
        }
        let stateBefore = call.state
        _ = call.takeActions()
        call.send(.end)
        call.send(.end)
        call.advance(by: .seconds(60))
        call.send(.end)
        #expect(call.takeActions() == stage.expectedTeardown)
        #expect(call.state == (stateBefore.isTerminal ? stateBefore : .ended))
        #expect(call.machine.nextDeadline() == nil)
    }

    @Test("Ended while provisioning: the late provisioning result is deleted once")
    func endWhileProvisioning() {
        var call = CallDriver()
        call.send(.start)
        call.send(.end)
        call.send(.provisioned(BridgeCapabilities()))
        call.send(.provisioned(BridgeCapabilities()))
        #expect(call.takeActions() == [.provision, .deleteCall])
        #expect(call.state == .ended)
    }

    @Test("Remote hang-up and a normal close of the events socket end the call")
    func remoteHangup() {
        for input in [CallInput.remoteHangup, .eventsSocketDropped(code: 1000)] {
            var call = CallDriver()
            call.connect()
            _ = call.takeActions()
            call.send(input)
            #expect(call.state == .ended)
            #expect(call.takeActions().suffix(2) == [.closeMedia, .deleteCall])
        }
    }

    @Test("Events socket auth rejected (1008) fails with perCallTokenRejected")
    func eventsAuthRejected() {
        var call = CallDriver()
        call.send(.start)
        call.send(.provisioned(BridgeCapabilities()))
        call.send(.dtlsConnected)
        call.send(.pullOffered)
        call.send(.pullAnswered)
        call.send(.eventsSocketDropped(code: 1008))
        #expect(call.state == .failed(.auth(.perCallTokenRejected)))
    }

    @Test("Barge-in flushes playout immediately and pauses the agent until unmute")
    func bargeIn() {
        var call = CallDriver()
        call.connect()
        _ = call.takeActions()
        let before = call.outputs.count
        call.send(.bridgeEvent(.bargeIn))
        #expect(call.outputs.dropFirst(before).first == .action(.flushPlayout))
        #expect(call.takeActions() == [.flushPlayout, .pausePlayout])
        #expect(call.machine.isAgentAudioPaused)
        call.send(.bridgeEvent(.bargeIn))
        #expect(call.takeActions() == [.flushPlayout])
        call.send(.bridgeEvent(.unmute))
        call.send(.bridgeEvent(.unmute))
        #expect(call.takeActions() == [.resumePlayout])
        #expect(!call.machine.isAgentAudioPaused)
    }

    @Test("Repulls are serialised: a repull during a pull waits for it")
    func repullSerialised() {
        var call = CallDriver()
        call.connect()
        _ = call.takeActions()
        call.send(.bridgeEvent(.repull))
        call.send(.bridgeEvent(.repull))
        #expect(call.takeActions() == [.pull])
        call.send(.pullOffered)
        call.send(.pullAnswered)
        #expect(call.takeActions() == [.answerPull, .pull])
        call.send(.pullOffered)
        call.send(.pullAnswered)
        #expect(call.takeActions() == [.answerPull])
    }

    @Test("Mute is reported once per change")
    func mute() {
        var call = CallDriver()
        call.connect()
        _ = call.takeActions()
        call.send(.setMuted(true))
        call.send(.setMuted(true))
        call.send(.setMuted(false))
        #expect(call.takeActions() == [.setMicrophoneMuted(true), .setMicrophoneMuted(false)])
        #expect(!call.machine.isMuted)
    }

    @Test("A failed pull while connected fails the call with that error")
    func pullFails() {
        var call = CallDriver()
        call.connect()
        call.send(.bridgeEvent(.repull))
        let error = PolyError.voice(.signalingFailed("Bridge pull failed (500)"))
        call.send(.stepFailed(.pull, error))
        #expect(call.state == .failed(error))
    }
}

@Suite("Audio state from call actions")
struct AudioStateTests {
    @Test("Mute and barge-in actions update the audio state; others leave it alone")
    func applyActions() {
        var audio = AudioState(inputName: "default device", outputName: "null")
        var changes: [Bool] = []
        for action in [
            CallAction.setMicrophoneMuted(true), .setMicrophoneMuted(true), .pausePlayout, .flushPlayout, .keepChecking,
        ] {
            changes.append(audio.apply(action))
        }
        #expect(changes == [true, false, true, false, false])
        #expect(audio.isMuted && audio.isAgentAudioPaused)
        let resumed = audio.apply(.resumePlayout)
        #expect(resumed && !audio.isAgentAudioPaused)
        #expect(audio.inputStatus == .active && audio.outputName == "null")
    }
}
