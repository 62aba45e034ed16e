// Call-quality warnings (Twilio-like), raised and cleared by the quality monitor.

/// A call-quality problem detected from the per-second statistics.
public enum QualityWarning: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Round-trip time above the threshold (default 400 ms) in 3 of the last 5 samples.
    case highRTT
    /// Inbound jitter above the threshold (default 30 ms) in 3 of the last 5 samples.
    case highJitter
    /// Inbound packet loss above the threshold (default 1 %) in 3 of the last 5 samples.
    case highLoss
    /// Estimated MOS (E-model) below the threshold (default 3.5) in 3 of the last 5 samples.
    case lowMOS
    /// More than the threshold (default 3 %) of the audio played was concealed in 3 of the last 5 samples:
    /// packets lost, or arriving too late for playout even when none is lost.
    case highConcealment
    /// The microphone level has not changed for several seconds: likely a dead or stuck input.
    case constantInputLevel

    public var description: String {
        switch self {
        case .highRTT: "high round-trip time"
        case .highJitter: "high jitter"
        case .highLoss: "high packet loss"
        case .lowMOS: "low estimated call quality (MOS)"
        case .highConcealment: "high concealment (audio missing or late)"
        case .constantInputLevel: "constant microphone level (input may be dead)"
        }
    }
}

/// A warning starting or stopping; `qualityWarnings` on a call delivers these.
public enum QualityWarningEvent: Hashable, Sendable {
    case raised(QualityWarning)
    case cleared(QualityWarning)
}
