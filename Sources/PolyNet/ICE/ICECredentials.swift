// ICE usernames fragments and passwords (RFC 8445 §5.3, RFC 8839 §5.4).

/// A ufrag/password pair; the password keys MESSAGE-INTEGRITY of checks sent to its owner.
public struct ICECredentials: Hashable, Sendable, CustomStringConvertible {
    public var ufrag: String
    public var password: String

    public init(ufrag: String, password: String) {
        self.ufrag = ufrag
        self.password = password
    }

    private static let iceChars = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")

    /// Fresh credentials (8-char ufrag, 24-char password ≈ 144 bits). Pass a cryptographic generator
    /// (`SystemRandomNumberGenerator`) in production; seeded ones are for tests.
    public static func random(using generator: inout some RandomNumberGenerator) -> ICECredentials {
        func text(_ count: Int) -> String {
            String((0..<count).map { _ in iceChars[Int.random(in: 0..<iceChars.count, using: &generator)] })
        }
        return ICECredentials(ufrag: text(8), password: text(24))
    }

    /// Never prints the password.
    public var description: String { "ufrag \(ufrag)" }
}
