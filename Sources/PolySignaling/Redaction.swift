// Secrets (web calling token, per-call token) never appear in full in descriptions, errors or logs.

/// Redaction of secrets for descriptions and logs.
public enum Redaction {
    /// At most the first four characters of `secret` followed by "…" (just "…" for short secrets).
    public static func token(_ secret: String?) -> String {
        guard let secret, !secret.isEmpty else { return "nil" }
        guard secret.count > 8 else { return "…" }
        return String(secret.prefix(4)) + "…"
    }
}
