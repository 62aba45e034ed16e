// What the call-state machine is told: user commands, and progress the I/O shell observed.

/// What the bridge offers for this call (from the provisioning response's `creds.extra`).
public struct BridgeCapabilities: Hashable, Sendable {
    /// `pullUrl` and `renegotiateUrl` are present: the agent's audio is pulled after media connects.
    public var hasPull: Bool
    /// `eventsUrl` is present: the events socket is opened after the first pull.
    public var hasEvents: Bool
    /// The `iceRestartUrl` extension: ICE can be restarted after the local address changed.
    public var supportsICERestart: Bool
    /// The `resumeGraceSeconds` extension: how long the bridge keeps the call after its events socket dropped.
    public var resumeGrace: Duration?

    public init(
        hasPull: Bool = true, hasEvents: Bool = true, supportsICERestart: Bool = false, resumeGrace: Duration? = nil
    ) {
        self.hasPull = hasPull
        self.hasEvents = hasEvents
        self.supportsICERestart = supportsICERestart
        self.resumeGrace = resumeGrace
    }
}

/// A frame from the bridge's events socket that matters to the call (others are ignored by the shell).
public enum BridgeEvent: Hashable, Sendable {
    /// `{"event":"repull"}`: run a new pull.
    case repull
    /// `{"event":"barge-in…"}`: stop the agent's audio now and flush what is buffered.
    case bargeIn
    /// `{"event":"unmute"}`: play the agent's audio again.
    case unmute
}

/// An input to `CallStateMachine.handle(_:at:)`.
public enum CallInput: Hashable, Sendable {
    // MARK: User commands
    /// `PolyCall.start()`; ignored unless idle.
    case start
    /// `PolyCall.end()`; idempotent in every state.
    case end
    /// `PolyCall.setMuted(_:)`.
    case setMuted(Bool)

    // MARK: Signaling progress (results of the shell's requests)
    /// The provisioning request succeeded.
    case provisioned(BridgeCapabilities)
    /// The bridge answered the offer (the shell applied the answer; ICE and DTLS proceed).
    case offerAnswered
    /// The pull request returned the bridge's offer (the shell applied it).
    case pullOffered
    /// The answer to the pulled offer was accepted by the bridge.
    case pullAnswered
    /// The ICE restart request returned the bridge's answer (the shell applied it).
    case iceRestartAnswered
    /// The action `step` failed (REST error, media set-up error, …). Failures of `deleteCall` are ignored.
    case stepFailed(CallAction, PolyError)

    // MARK: Media progress
    case iceConnected
    /// ICE consent or connectivity was lost on the selected pair (may come back).
    case iceDisconnected
    /// Every candidate pair failed.
    case iceFailed
    /// The DTLS handshake finished and SRTP keys are installed: media can flow.
    case dtlsConnected
    /// Inbound RTP/RTCP or a consent response arrived (the shell may report this at most every ~100 ms).
    case mediaFlowing
    /// The shell saw the media path stall (e.g. send errors) before the silence timer.
    case mediaStalled

    // MARK: Events socket
    /// The events socket opened and the `auth` frame was sent.
    case eventsSocketOpened
    /// The events socket closed or failed to open, with the WebSocket close code (1006 when none).
    case eventsSocketDropped(code: Int)

    // MARK: Network and bridge
    /// The local address the call used disappeared (netlink); it may come back.
    case localAddressRemoved
    /// The local address the call used was replaced by another.
    case localAddressChanged
    case bridgeEvent(BridgeEvent)
    /// The bridge ended the call.
    case remoteHangup
}
