// Why a call ended; also the `outcome` label of the calls-total metric.

/// The outcome of a call.
public enum CallEndReason: String, Sendable, CaseIterable, Equatable {
    /// `DELETE /api/v1/call/{id}`.
    case hangUp = "hangup"
    /// The events socket was gone longer than `resumeGraceSeconds`.
    case eventsGone = "events_gone"
    /// Media was connected, then no packet arrived for `mediaTimeout`.
    case mediaTimeout = "media_timeout"
    /// Media never connected (or the events socket never opened) within `setupTimeout`.
    case setupTimeout = "setup_timeout"
    /// The bridge stopped.
    case shutdown = "shutdown"
}
