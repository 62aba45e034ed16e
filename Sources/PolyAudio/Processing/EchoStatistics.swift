// Echo canceller figures for call statistics.

/// How well the echo canceller is doing, as the library reports it (long-term averages, dB).
public struct EchoStatistics: Sendable, Equatable {
    /// ERL: how much quieter the echo arrives at the microphone than the playout signal.
    public var echoReturnLoss: Int
    /// ERLE: how much the canceller reduces the echo.
    public var echoReturnLossEnhancement: Int
    /// RERL = ERL + ERLE.
    public var residualEchoReturnLoss: Int
    /// The canceller's internal median delay figure (for diagnostics: it is measured against the
    /// canceller's own buffering, not an absolute playout-to-microphone delay); nil until it has one.
    public var delayOffsetMedian: Duration?
    /// Whether the last microphone block contained echo.
    public var hasEcho: Bool

    public init(
        echoReturnLoss: Int, echoReturnLossEnhancement: Int, residualEchoReturnLoss: Int, delayOffsetMedian: Duration?,
        hasEcho: Bool
    ) {
        self.echoReturnLoss = echoReturnLoss
        self.echoReturnLossEnhancement = echoReturnLossEnhancement
        self.residualEchoReturnLoss = residualEchoReturnLoss
        self.delayOffsetMedian = delayOffsetMedian
        self.hasEcho = hasEcho
    }
}
