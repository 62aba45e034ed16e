// The timeouts and backoff the call-state machine applies.

/// Timing rules of a call (see docs/CALL-STATES.md).
public struct CallPolicy: Hashable, Sendable {
    /// From `start` to media connected (DTLS done); then `failed(.voice(.timedOut))`.
    public var connectTimeout: Duration
    /// From the start of an outage until `failed(.voice(.disconnected))`.
    public var reconnectTimeout: Duration
    /// No inbound media or consent for this long counts as an outage.
    public var mediaSilenceTimeout: Duration
    /// Delays between reconnect attempts.
    public var backoff: ReconnectBackoff

    public init(
        connectTimeout: Duration = .seconds(30), reconnectTimeout: Duration = .seconds(30),
        mediaSilenceTimeout: Duration = .seconds(2), backoff: ReconnectBackoff = ReconnectBackoff()
    ) {
        self.connectTimeout = connectTimeout
        self.reconnectTimeout = reconnectTimeout
        self.mediaSilenceTimeout = mediaSilenceTimeout
        self.backoff = backoff
    }

    /// The policy for a call with these options (their connect and reconnect timeouts).
    public init(options: VoiceOptions) {
        self.init(connectTimeout: options.connectTimeout, reconnectTimeout: options.reconnectTimeout)
    }
}
