// Structured bridge logs: one line per event, as text or JSON, every value redacted.
import FoundationEssentials
import Glibc
import PolyCore

/// How log lines look.
public enum BridgeLogFormat: String, Sendable, CaseIterable {
    /// `polyvoice-bridge <level> <event> key=value …`
    case text
    /// One JSON object per line: `{"time":…,"level":…,"event":…, fields…}`.
    case json
}

/// The bridge's event log. Every field value passes through the `Redactor` (where the bridge
/// registers each web calling token and per-call token), so secrets never reach the output.
public struct BridgeLog: Sendable {
    public let format: BridgeLogFormat
    public let level: LogLevel
    public let redactor: Redactor
    private let write: @Sendable (String) -> Void

    /// `write` receives whole lines without the newline (default: standard error).
    public init(
        format: BridgeLogFormat = .text, level: LogLevel = .info, redactor: Redactor = Redactor(),
        write: (@Sendable (String) -> Void)? = nil
    ) {
        self.format = format
        self.level = level
        self.redactor = redactor
        self.write = write ?? { line in StandardStream.error.write(line + "\n") }
    }

    /// Logs `event` with ordered fields.
    public func event(_ messageLevel: LogLevel, _ event: String, _ fields: KeyValuePairs<String, String> = [:]) {
        guard messageLevel != .none, messageLevel <= level else { return }
        let clean = fields.map { ($0.key, redactor.redact($0.value)) }
        switch format {
        case .text:
            let rendered = clean.map { "\($0.0)=\(Self.quoteIfNeeded($0.1))" }.joined(separator: " ")
            write("polyvoice-bridge \(messageLevel) \(event)" + (rendered.isEmpty ? "" : " " + rendered))
        case .json:
            var parts = [
                "\"time\":\(JSONString.quote(Self.timestamp()))",
                "\"level\":\(JSONString.quote(messageLevel.description))",
                "\"event\":\(JSONString.quote(event))",
            ]
            for (key, value) in clean where !["time", "level", "event"].contains(key) {
                parts.append("\(JSONString.quote(key)):\(JSONString.quote(value))")
            }
            write("{" + parts.joined(separator: ",") + "}")
        }
    }

    /// A `Logger` (for media code) whose records become `log` events of this log.
    public func logger(category: String) -> Logger {
        let log = self
        return Logger(
            level: level, category: category,
            sink: .handler { record in
                log.event(record.level, "log", ["category": record.category, "message": record.message])
            }, redactor: redactor)
    }

    private static func quoteIfNeeded(_ value: String) -> String {
        value.isEmpty || value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" })
            ? JSONString.quote(value) : value
    }

    private static func timestamp() -> String {
        Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
