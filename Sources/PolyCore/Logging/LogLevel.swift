// How much PolyVoice logs.

/// Log verbosity, from nothing to everything. A message is written when its level ≤ the configured one.
public enum LogLevel: Int, Comparable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case none = 0
    case error = 1
    case warn = 2
    case info = 3
    case debug = 4

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .none: "none"
        case .error: "error"
        case .warn: "warn"
        case .info: "info"
        case .debug: "debug"
        }
    }
}
