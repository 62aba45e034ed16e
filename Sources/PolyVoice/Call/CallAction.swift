// What the call-state machine asks of the I/O shell, and what it reports.

/// Work for the I/O shell. Long steps (requests, socket opens) are started and report back through
/// `CallInput`s; teardown steps are completed in the order they come before polling on.
public enum CallAction: Hashable, Sendable {
    /// `POST /api/v1/call` → `.provisioned` or `.stepFailed`.
    case provision
    /// Create the media session, gather candidates, `POST {connectUrl}` → `.offerAnswered`, then ICE/DTLS progress.
    case sendOffer
    /// `POST {pullUrl}` → `.pullOffered` or `.stepFailed`.
    case pull
    /// Answer the pulled offer: `POST {renegotiateUrl}` → `.pullAnswered` or `.stepFailed`.
    case answerPull
    /// Open the events socket and send `auth` → `.eventsSocketOpened` or `.eventsSocketDropped`.
    case openEventsSocket
    /// Open the events socket again and re-authenticate → `.eventsSocketOpened` or `.eventsSocketDropped`.
    case reopenEventsSocket
    /// New ICE credentials, `POST {iceRestartUrl}` with the new offer → `.iceRestartAnswered` or `.stepFailed`.
    case iceRestart
    /// Media is down on an address that did not change: a consent check on the selected pair now and every
    /// 200 ms until it is answered (the answer reports `mediaFlowing`), instead of the agent's slow schedule.
    case keepChecking
    /// Send silence/DTX instead of the microphone (true) or the microphone again (false); RTP keeps flowing.
    case setMicrophoneMuted(Bool)
    /// Drop everything buffered for playout (jitter buffer and output ring) now.
    case flushPlayout
    /// Stop playing the agent's audio (barge-in).
    case pausePlayout
    /// Play the agent's audio again.
    case resumePlayout
    /// Teardown 1: close the events socket with 1000.
    case closeEventsSocket
    /// Teardown 2: DTLS close_notify, stop RTP, release sockets and audio.
    case closeMedia
    /// Teardown 3: `DELETE /api/v1/call/{callId}` (best effort).
    case deleteCall
}

/// One output of `CallStateMachine.pollOutput(at:)`.
public enum CallOutput: Hashable, Sendable {
    /// Publish this state on the call's `states`.
    case stateChanged(CallState)
    case action(CallAction)
}
