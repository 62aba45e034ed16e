// JSON error bodies of non-2xx bridge responses (reference bridge; hosted bodies may differ).

/// `{"error":"<code>","message":"<human text>"}`. Never carries a token.
public struct ErrorBody: Codable, Equatable, Sendable {
    /// A short machine-readable code such as `"unauthorized"` or `"body_too_large"`.
    public var error: String
    public var message: String?

    public init(error: String, message: String? = nil) {
        self.error = error
        self.message = message
    }
}
