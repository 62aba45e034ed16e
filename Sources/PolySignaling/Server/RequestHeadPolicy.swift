// What HTTPServer does with a request once its head has arrived: decided from the headers alone (sans-IO),
// so an oversized or unframed body is refused before a byte of it is read.

/// Why the server itself (not a handler) refused a request or dropped a connection.
public enum ServerRejection: String, Sendable, CaseIterable {
    /// Content-Length above `maxBodyBytes`, or a body that grew past it: 413, then the connection closes.
    case bodyTooLarge = "body_too_large"
    /// Content-Length that is not a plain decimal number: 400, then close.
    case badContentLength = "bad_content_length"
    /// A body without Content-Length (chunked): 411, then close.
    case lengthRequired = "length_required"
    /// The body did not arrive within `bodyTimeout` of the head: 408, then close.
    case bodyTimeout = "body_timeout"
    /// A WebSocket whose peer stopped reading: its queue of unsent frames overflowed and it was dropped.
    case webSocketSlowReader = "websocket_slow_reader"
}

/// The decision for one request head.
public enum RequestHeadDecision: Equatable, Sendable {
    /// No body: hand the request to the handler now.
    case dispatch
    /// A body of exactly this many bytes (1…maxBodyBytes) follows.
    case readBody(Int)
    /// Answer this at once and close the connection without reading the body.
    case reject(ServerRejection)
}

public enum RequestHeadPolicy {
    /// Decides from the lower-cased `headers` and the body limit. Never trusts the announced length beyond
    /// the limit, and refuses bodies whose length is not announced.
    public static func decide(headers: [String: String], maxBodyBytes: Int) -> RequestHeadDecision {
        if let encoding = headers["transfer-encoding"], !encoding.isEmpty { return .reject(.lengthRequired) }
        guard let text = headers["content-length"] else { return .dispatch }
        guard let length = contentLength(text) else { return .reject(.badContentLength) }
        if length == 0 { return .dispatch }
        return length > maxBodyBytes ? .reject(.bodyTooLarge) : .readBody(length)
    }

    /// A Content-Length value: ASCII digits only (surrounding blanks allowed), no sign, no overflow.
    /// Values too long to matter are clamped to `Int.max` (still "too large", never a crash).
    public static func contentLength(_ text: String) -> Int? {
        let digits = text.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var value = 0
        for digit in digits.reversed() {
            let (times, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = times.addingReportingOverflow(Int(digit - 0x30))
            if overflowA || overflowB { return Int.max }
            value = sum
        }
        return value
    }

    /// The response the server sends for a rejection (a PROTOCOL.md error body).
    public static func response(for rejection: ServerRejection, maxBodyBytes: Int) -> HTTPResponse {
        switch rejection {
        case .bodyTooLarge:
            .error(413, code: rejection.rawValue, message: "request bodies are limited to \(maxBodyBytes) bytes")
        case .badContentLength:
            .error(400, code: rejection.rawValue, message: "Content-Length must be a decimal number of bytes")
        case .lengthRequired:
            .error(411, code: rejection.rawValue, message: "send the body with a Content-Length, not chunked")
        case .bodyTimeout:
            .error(408, code: rejection.rawValue, message: "the request body did not arrive in time")
        case .webSocketSlowReader:
            .error(503, code: rejection.rawValue)
        }
    }
}
