// Removes secrets from text before it is logged or shown: registered values and credential-shaped patterns.
import Synchronization

/// Scrubs secrets (tokens, keys, session ids) out of messages.
///
/// Two layers: every registered secret is replaced wherever it appears, and credential-shaped
/// patterns (`Bearer …`, `"token":"…"`, `X-Call-Token: …`, `apiKey=…`, …) are masked even when
/// the value was never registered. Replacements look like `abcd…(redacted)`: at most a quarter of
/// the secret (up to 4 characters) stays visible so that log lines about one call can be matched.
public final class Redactor: Sendable {
    private let secrets = Mutex<[String]>([])

    public init() {}

    /// Registers a secret; from now on it never appears in `redact(_:)`'s output. Empty values are ignored.
    public func register(_ secret: String) {
        guard !secret.isEmpty else { return }
        secrets.withLock { list in
            guard !list.contains(secret) else { return }
            list.append(secret)
            // Longest first so that a secret containing another is replaced whole.
            list.sort { $0.count > $1.count }
        }
    }

    /// The text with every registered secret and every credential-shaped value masked.
    public func redact(_ text: String) -> String {
        var result = text
        for secret in secrets.withLock({ $0 }) where result.contains(secret) {
            result = result.replacing(secret, with: Self.marker(for: secret))
        }
        return Self.redactPatterns(in: result)
    }

    /// The marker that replaces `secret`: a short prefix, then "…(redacted)".
    public static func marker(for secret: String) -> String {
        String(secret.prefix(min(4, secret.count / 4))) + maskSuffix
    }

    static let maskSuffix = "…(redacted)"

    /// Masks values that follow credential keys, whether or not they were registered.
    public static func redactPatterns(in text: String) -> String {
        var result = text
        for rule in rules { result = rule.apply(to: result) }
        return result
    }

    private static let rules: [PatternRule] = [
        PatternRule(key: "bearer ", needsSeparator: false),
        PatternRule(key: "basic ", needsSeparator: false),
        PatternRule(key: "x-call-token", needsSeparator: true),
        PatternRule(key: "apikey", needsSeparator: true),
        PatternRule(key: "api_key", needsSeparator: true),
        PatternRule(key: "api-key", needsSeparator: true),
        PatternRule(key: "token", needsSeparator: true),
        PatternRule(key: "credential", needsSeparator: true),
        PatternRule(key: "password", needsSeparator: true),
        PatternRule(key: "secret", needsSeparator: true),
    ]
}

/// "key[separator]value": masks `value`. Keys match case-insensitively anywhere (so `"token"`,
/// `webrtcToken=`, `X-Call-Token:` all match "token"); with `needsSeparator` a ':' or '=' must follow.
private struct PatternRule: Sendable {
    let key: [Character]
    let needsSeparator: Bool

    init(key: String, needsSeparator: Bool) {
        self.key = Array(key)
        self.needsSeparator = needsSeparator
    }

    private static let valueEnds: Set<Character> = [
        " ", "\"", "'", ",", "&", ";", "}", "]", ")", ">", "\n", "\r", "\t",
    ]
    private static let separatorChars: Set<Character> = [" ", ":", "=", "\"", "'", "\t"]

    func apply(to text: String) -> String {
        let chars = Array(text)
        guard chars.count > key.count else { return text }
        var output: [Character] = []
        output.reserveCapacity(chars.count)
        var i = 0
        while i < chars.count {
            guard matchesKey(chars, at: i) else {
                output.append(chars[i])
                i += 1
                continue
            }
            var j = i + key.count
            // Key-value keys need ':' or '=' among the next few separator characters
            // ("token\": \"v\"" and "token=v" match; "tokens left" does not).
            if needsSeparator {
                var sawSeparator = false
                while j < chars.count, Self.separatorChars.contains(chars[j]), j - (i + key.count) < 6 {
                    if chars[j] == ":" || chars[j] == "=" { sawSeparator = true }
                    j += 1
                }
                guard sawSeparator else {
                    output.append(contentsOf: chars[i..<(i + key.count)])
                    i += key.count
                    continue
                }
            } else {
                while j < chars.count, chars[j] == " " { j += 1 }
            }
            var end = j
            while end < chars.count, !Self.valueEnds.contains(chars[end]) { end += 1 }
            output.append(contentsOf: chars[i..<j])
            let value = String(chars[j..<end])
            output.append(contentsOf: value.isEmpty || value.hasSuffix(Redactor.maskSuffix) ? value : "…(redacted)")
            i = end
        }
        return String(output)
    }

    private func matchesKey(_ chars: [Character], at index: Int) -> Bool {
        guard index + key.count <= chars.count else { return false }
        for (offset, keyChar) in key.enumerated() where chars[index + offset].lowercased() != String(keyChar) {
            return false
        }
        return true
    }
}
