// "Up quickly, down slowly": the jitter buffer's feedback rules raise a delay at once when a loss shows it was too
// low, keep it a while, then let it fall slowly.

/// A value set at once, held for `holdMilliseconds` after it was last set, then falling by `decayPerSecond` to 0.
struct HeldValue {
    let holdMilliseconds: Double
    let decayPerSecond: Double
    private var value = 0.0
    private var setAt = -Double.infinity

    init(holdMilliseconds: Double, decayPerSecond: Double) {
        self.holdMilliseconds = holdMilliseconds
        self.decayPerSecond = decayPerSecond
    }

    /// The value at `nowMs` (0 until first set).
    func value(atMs nowMs: Double) -> Double {
        let decaying = nowMs - setAt - holdMilliseconds
        guard decaying > 0 else { return value }
        return max(0, value - decaying / 1000 * decayPerSecond)
    }

    /// Moves the value by `delta` (the origin it is measured from moved), not below 0; the hold goes on as it was.
    mutating func shift(by delta: Double) { value = max(0, value + delta) }

    /// Sets the value to `newValue` at `nowMs`; the hold starts again.
    mutating func set(_ newValue: Double, atMs nowMs: Double) {
        value = newValue
        setAt = nowMs
    }
}
