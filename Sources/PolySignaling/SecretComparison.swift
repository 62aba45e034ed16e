// Token checks for servers: time independent of where the first difference is.

/// Comparison of secrets (tokens) that does not leak the matching prefix length through timing.
public enum SecretComparison {
    /// Whether `a` and `b` have the same UTF-8 bytes; time depends only on the lengths.
    public static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8)
        let right = Array(b.utf8)
        var difference = UInt8(truncatingIfNeeded: left.count ^ right.count) | (left.count == right.count ? 0 : 1)
        for index in 0..<max(left.count, right.count) {
            let x = index < left.count ? left[index] : 0
            let y = index < right.count ? right[index] : 0
            difference |= x ^ y
        }
        return difference == 0
    }
}
