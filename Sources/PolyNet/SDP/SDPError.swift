// Why an SDP text or negotiation was refused.

/// A malformed SDP line (1-based `line`), or an offer we cannot answer.
public enum SDPError: Error, Equatable, Sendable, CustomStringConvertible {
    case malformed(line: Int, reason: String)
    /// No m-line of the offer could be accepted (e.g. no Opus).
    case nothingToAccept

    public var description: String {
        switch self {
        case .malformed(let line, let reason): "SDP line \(line): \(reason)"
        case .nothingToAccept: "SDP offer has no acceptable audio m-line"
        }
    }
}
