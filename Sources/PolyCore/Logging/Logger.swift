// Levelled logging to stderr or an app handler; every message passes through a Redactor first.

/// One line of log output, already redacted.
public struct LogRecord: Sendable, Hashable {
    public var level: LogLevel
    /// The part of PolyVoice that wrote it ("call", "signaling", "media", …).
    public var category: String
    public var message: String
}

/// Where log records go.
public enum LogSink: Sendable {
    /// Standard error, one line per record: "polyvoice <level> [<category>] <message>".
    case standardError
    /// The app's handler; called on the logging thread, so it must be quick and thread-safe.
    case handler(@Sendable (LogRecord) -> Void)
}

/// A levelled logger. Messages are built lazily (only when the level allows) and always redacted.
public struct Logger: Sendable {
    public var level: LogLevel
    public var category: String
    public let sink: LogSink
    /// Shared by the loggers of one call: register its tokens and ids here as soon as they are known.
    public let redactor: Redactor

    public init(level: LogLevel, category: String = "polyvoice", sink: LogSink = .standardError, redactor: Redactor) {
        self.level = level
        self.category = category
        self.sink = sink
        self.redactor = redactor
    }

    /// The same sink and redactor under another category.
    public func child(_ category: String) -> Logger {
        var copy = self
        copy.category = category
        return copy
    }

    public func isEnabled(_ messageLevel: LogLevel) -> Bool { messageLevel != .none && messageLevel <= level }

    public func log(_ messageLevel: LogLevel, _ message: @autoclosure () -> String) {
        guard isEnabled(messageLevel) else { return }
        let record = LogRecord(level: messageLevel, category: category, message: redactor.redact(message()))
        switch sink {
        case .standardError:
            let line = "polyvoice \(record.level) [\(record.category)] \(record.message)\n"
            StandardStream.error.write(line)
        case .handler(let handler):
            handler(record)
        }
    }

    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    public func warn(_ message: @autoclosure () -> String) { log(.warn, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
}
