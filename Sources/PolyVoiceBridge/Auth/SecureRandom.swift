// Call ids and per-call tokens from the system's cryptographic generator.

/// Random identifiers. `SystemRandomNumberGenerator` reads getrandom(2) on Linux.
public enum SecureRandom {
    /// `bits` random bits as lower-case hex (`bits` a multiple of 64).
    public static func hex(bits: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var text = ""
        for _ in 0..<(bits / 64) {
            let word = generator.next()
            let digits = String(word, radix: 16)
            text += String(repeating: "0", count: 16 - digits.count) + digits
        }
        return text
    }

    /// A call id: `call-` and 64 random bits in hex.
    public static func callID() -> String { "call-" + hex(bits: 64) }

    /// A per-call token: 128 random bits in hex.
    public static func callToken() -> String { hex(bits: 128) }
}
