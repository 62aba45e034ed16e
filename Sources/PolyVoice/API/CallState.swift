// The lifecycle of one call as the public API reports it.

/// The state of a call. `states` on a call replays the latest one to new subscribers.
public enum CallState: Hashable, Sendable, CustomStringConvertible {
    /// Created, not started.
    case idle
    /// Provisioning, offer/answer and ICE/DTLS set-up are in progress.
    case connecting
    /// Media flows both ways.
    case connected
    /// The network dropped; the call and its audio pipeline are kept while reconnecting.
    /// `attempt` counts recovery attempts of this outage, from 1.
    case reconnecting(attempt: Int)
    /// The call ended normally (local `end()` or remote hang-up).
    case ended
    /// The call failed for good.
    case failed(PolyError)

    /// Whether the call holds network resources (connecting, connected or reconnecting).
    public var isActive: Bool {
        switch self {
        case .connecting, .connected, .reconnecting: true
        case .idle, .ended, .failed: false
        }
    }

    /// Whether the call can no longer change state (ended or failed).
    public var isTerminal: Bool {
        switch self {
        case .ended, .failed: true
        case .idle, .connecting, .connected, .reconnecting: false
        }
    }

    public var description: String {
        switch self {
        case .idle: "idle"
        case .connecting: "connecting"
        case .connected: "connected"
        case .reconnecting(let attempt): "reconnecting (attempt \(attempt))"
        case .ended: "ended"
        case .failed(let error): "failed: \(error)"
        }
    }
}
