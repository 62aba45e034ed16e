// Web calling tokens the bridge accepts, compared in constant time.
import PolySignaling

/// A set of accepted secrets. `contains` looks at every entry and every byte, so its timing does not
/// reveal which token (or how much of one) matched.
public struct TokenSet: Sendable {
    private let tokens: [[UInt8]]

    public init(_ tokens: [String]) {
        self.tokens = tokens.filter { !$0.isEmpty }.map { Array($0.utf8) }
    }

    public var isEmpty: Bool { tokens.isEmpty }
    public var count: Int { tokens.count }

    /// Whether `candidate` equals one of the tokens.
    public func contains(_ candidate: String) -> Bool {
        let bytes = Array(candidate.utf8)
        var matched = false
        for token in tokens {
            // No early exit: every token is compared in full.
            matched = Self.constantTimeEquals(token, bytes) || matched
        }
        return matched
    }

    /// Byte equality whose time depends only on the lengths (`SecretComparison`, PolySignaling).
    public static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        SecretComparison.constantTimeEquals(lhs, rhs)
    }

    /// Tokens from a token file (one per line; blank lines and `#` comments ignored) and/or an
    /// environment value (comma-separated).
    public static func parse(fileContents: String?, environment: String?) -> [String] {
        var tokens: [String] = []
        for line in (fileContents ?? "").split(whereSeparator: \.isNewline) {
            let token = line.trimmingWhitespace()
            if !token.isEmpty && !token.hasPrefix("#") { tokens.append(token) }
        }
        for part in (environment ?? "").split(separator: ",") {
            let token = part.trimmingWhitespace()
            if !token.isEmpty { tokens.append(token) }
        }
        return tokens
    }
}
