// Token checks for servers: time independent of where the first difference is.

/// Comparison of secrets (tokens) that does not leak the matching prefix length through timing.
/// The one implementation: the bridge's `TokenSet` and per-call token checks use it too.
public enum SecretComparison {
    /// Whether `a` and `b` have the same UTF-8 bytes; time depends only on the lengths.
    public static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        constantTimeEquals(Array(a.utf8), Array(b.utf8))
    }

    /// Whether `left` and `right` are the same bytes; every byte of the longer one is looked at, with no
    /// early exit, so the time depends only on the lengths.
    public static func constantTimeEquals(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        var difference = UInt8(left.count == right.count ? 0 : 1)
        for index in 0..<max(left.count, right.count) {
            let x = index < left.count ? left[index] : 0
            let y = index < right.count ? right[index] : 0
            difference |= x ^ y
        }
        return difference == 0
    }
}
