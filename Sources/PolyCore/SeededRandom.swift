// Deterministic randomness for simulations, traces and tests (same seed, same run).
import Glibc

/// SplitMix64: small, fast, and good enough for loss/jitter simulation. Not for cryptography.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform Double in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// A normally distributed value (Box–Muller).
    public mutating func normal(mean: Double = 0, standardDeviation: Double = 1) -> Double {
        let u1 = max(unit(), .leastNonzeroMagnitude)
        let u2 = unit()
        return mean + standardDeviation * (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
