// The media endpoint's inputs, outputs, events and errors.
import PolyCore
import PolyNet

/// What the shell feeds a `MediaEndpoint`.
public enum MediaInput: Sendable {
    /// A datagram received on the socket bound to `to`, from `from`.
    case datagram([UInt8], from: TransportAddress, to: TransportAddress)
    /// The addresses of the sockets the shell has bound (one host candidate each). The first set starts
    /// gathering; later sets are remembered for `restartICE(at:)`.
    case localAddresses([TransportAddress])
    /// `nextDeadline()` has passed.
    case timeout
    /// Bytes read from the stream `openStream` asked for (TLS already removed): any split.
    case streamReceived([UInt8], stream: Int)
    /// The stream could not connect, failed or was closed by the server; `reason` says why, without the
    /// server's name (the endpoint adds it).
    case streamClosed(stream: Int, reason: String)
}

/// What the endpoint reports.
public enum MediaEvent: Sendable, Equatable {
    /// Local candidates are gathered: `createOffer(at:)` (client) can run.
    case gatheringComplete
    case iceStateChanged(ICEConnectionState)
    /// Media will use this pair (also after an ICE restart selects a new one).
    case selectedPairChanged(local: TransportAddress, remote: TransportAddress)
    /// DTLS completed with the expected fingerprint; SRTP is keyed and audio can flow.
    case connected
    /// Authenticated media arrives (first time after `connected`, or again after `mediaStalled`).
    case mediaFlowing
    /// No authenticated media for `stallTimeout`.
    case mediaStalled
    /// The far end sent RTCP BYE.
    case remoteBye
    /// The peer closed DTLS (close_notify).
    case remoteClosed
    /// The session cannot continue (DTLS failure, fingerprint mismatch, ICE failed); the text has no secrets.
    case failed(String)
    /// No path to the far end: gathering found no candidate to offer, or every pair failed before one was
    /// selected. The text says what was tried (candidates by type, each TURN server's outcome).
    case noPath(String)
    /// A TURN server could not give a relay candidate, or lost its allocation; the call goes on with the
    /// other candidates. The text names the server, never a credential.
    case relayFailed(String)
    /// A TURN server replaced a lost allocation (437) with a new relayed address: the call must restart ICE
    /// to offer it. The text names the server.
    case relayReallocated(String)
    /// `close(at:)` finished: BYE and close_notify are queued, nothing more will be sent.
    case closed
}

/// What the endpoint asks the shell to do.
public enum MediaOutput: Sendable, Equatable {
    /// Send `bytes` from the socket bound to `from` to `to`.
    case transmit([UInt8], from: TransportAddress, to: TransportAddress)
    /// Open a TCP (or TLS) connection to a TURN server; bytes for it follow as `streamTransmit`, which
    /// wait until it is connected. Failures come back as `MediaInput.streamClosed`.
    case openStream(RelayStream)
    /// Write `bytes` to the stream (through TLS if it is one).
    case streamTransmit([UInt8], stream: Int)
    /// Close the stream (its relay failed or the endpoint closed).
    case closeStream(Int)
    case event(MediaEvent)
}

/// Why a signaling call on the endpoint was refused.
public enum MediaEndpointError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call does not fit this endpoint's role (e.g. `createPullOffer` on a client).
    case wrongRole(String)
    /// The call does not fit the negotiation state (e.g. an answer without an offer).
    case wrongState(String)
    /// Gathering has not finished (wait for `.gatheringComplete`).
    case gatheringIncomplete
    /// The remote description is unusable (parse error, no ICE credentials, no fingerprint, no Opus).
    case invalidDescription(String)
    /// A component could not be set up (DTLS context, Opus codec, SRTP session).
    case setup(String)

    public var description: String {
        switch self {
        case .wrongRole(let text): "wrong role: \(text)"
        case .wrongState(let text): "wrong state: \(text)"
        case .gatheringIncomplete: "ICE gathering has not finished"
        case .invalidDescription(let text): "invalid session description: \(text)"
        case .setup(let text): "media setup failed: \(text)"
        }
    }
}
