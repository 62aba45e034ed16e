// The document tree both parsers produce (JSON and YAML), so one decoder gives both the same schema and
// the same errors. Each node keeps the line it started on.

/// A parsed value: a mapping (keys in file order), a sequence or a scalar, with its 1-based line.
public indirect enum ScenarioNode: Sendable, Equatable {
    /// `quoted`: the scalar was a string in quotes (JSON strings, quoted YAML), never a number or bool.
    case scalar(String, quoted: Bool, line: Int)
    /// JSON `null`, YAML `~` / `null` / empty.
    case null(line: Int)
    case sequence([ScenarioNode], line: Int)
    case mapping([(key: String, value: ScenarioNode)], line: Int)

    public var line: Int {
        switch self {
        case .scalar(_, _, let line), .null(let line), .sequence(_, let line), .mapping(_, let line): line
        }
    }

    /// What a message calls it ("a mapping", "the number 3").
    var kindDescription: String {
        switch self {
        case .scalar(let text, let quoted, _): quoted ? "a string" : "'\(text.prefix(40))'"
        case .null: "null"
        case .sequence: "a list"
        case .mapping: "a mapping"
        }
    }

    public static func == (lhs: ScenarioNode, rhs: ScenarioNode) -> Bool {
        switch (lhs, rhs) {
        case (.scalar(let a, let qa, let la), .scalar(let b, let qb, let lb)): a == b && qa == qb && la == lb
        case (.null(let a), .null(let b)): a == b
        case (.sequence(let a, let la), .sequence(let b, let lb)): a == b && la == lb
        case (.mapping(let a, let la), .mapping(let b, let lb)):
            la == lb && a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }
}

/// A scenario file that cannot be used: which file, where, and what was expected. Nothing is called.
public struct ScenarioError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    /// 1-based line, when known.
    public var line: Int?
    /// Key path such as `steps[2].wait_for_agent.timeout_s`, when the problem is a value.
    public var path: String?
    public var message: String

    public init(file: String, line: Int?, path: String?, message: String) {
        self.file = file
        self.line = line
        self.path = path
        self.message = message
    }

    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        text += ": "
        if let path, !path.isEmpty { text += "\(path): " }
        return text + message
    }
}
