// The operation the buffer chose to produce a frame of audio.

/// What the jitter buffer did to produce the audio of one `pull` (the last step if it took several).
public enum PlayoutOperation: Sendable, Equatable {
    /// Decoded the expected packet as is.
    case normal
    /// Concealed a missing packet (PLC, or silence once PLC has run long enough).
    case expand
    /// Decoded a packet after concealment, cross-fading from the concealed audio.
    case merge
    /// Removed a pitch period: the buffer was above its target.
    case accelerate
    /// Inserted a pitch period: the buffer was below its target.
    case preemptiveExpand
    /// Recovered a lost packet from the next packet's in-band FEC.
    case fecRecovery
    /// Played silence that is not loss: before the first packet, during DTX, or after `flush()`.
    case silence
}
