// The clock, sleep and randomness BridgeClient uses, injectable so retry tests run in virtual time.
import FoundationEssentials

/// Time and randomness for `BridgeClient`'s retries.
public struct ClientEnvironment: Sendable {
    /// Waits `duration` (throws on cancellation).
    public var sleep: @Sendable (Duration) async throws -> Void
    /// Wall-clock time, used only to interpret `Retry-After` HTTP-dates.
    public var now: @Sendable () -> Date
    /// A uniform random number in [0, 1) for backoff jitter.
    public var unitRandom: @Sendable () -> Double

    public init(
        sleep: @escaping @Sendable (Duration) async throws -> Void, now: @escaping @Sendable () -> Date,
        unitRandom: @escaping @Sendable () -> Double
    ) {
        self.sleep = sleep
        self.now = now
        self.unitRandom = unitRandom
    }

    /// Real time and system randomness.
    public static let live = ClientEnvironment(
        sleep: { try await Task.sleep(for: $0) }, now: { Date() }, unitRandom: { Double.random(in: 0..<1) })
}
