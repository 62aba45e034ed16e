// libopus failures (and settings libopus would reject) as one typed Swift error.
import COpus

/// A libopus error code with libopus's own message (`opus_strerror`), plus what was being done.
///
/// Invalid settings and malformed calls use `OPUS_BAD_ARG` with a `context` naming the problem;
/// corrupt packets give `OPUS_INVALID_PACKET` (or another libopus code), never a crash.
public struct OpusError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The libopus error code (negative, e.g. `OPUS_BAD_ARG` = -1, `OPUS_INVALID_PACKET` = -4).
    public let code: Int32
    /// libopus's message for `code`.
    public let message: String
    /// What the wrapper was doing or which setting was wrong, if known.
    public let context: String?

    public init(code: Int32, context: String? = nil) {
        self.code = code
        self.message = String(cString: opus_strerror(code))
        self.context = context
    }

    /// An argument or setting outside what libopus accepts.
    static func badArgument(_ context: String) -> OpusError { OpusError(code: OPUS_BAD_ARG, context: context) }

    public var description: String {
        if let context { return "opus: \(message) (\(context))" }
        return "opus: \(message)"
    }
}

/// Throws when a libopus call returned a negative code; returns the non-negative result.
@inline(__always)
func checkOpus(_ result: Int32, _ context: @autoclosure () -> String) throws(OpusError) -> Int {
    guard result >= 0 else { throw OpusError(code: result, context: context()) }
    return Int(result)
}
