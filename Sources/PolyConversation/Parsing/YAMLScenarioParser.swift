// YAML scenario files through libyaml's event parser (Debian's libyaml-dev): events are folded into the
// same `ScenarioNode` tree the JSON parser makes. Anchors and aliases are refused (a scenario needs
// none, and they are how small YAML files expand into huge ones); one document only; bounded nesting.
import CYAML

enum YAMLScenarioParser {
    static let maxDepth = 64
    /// Nodes in one document at most (a scenario has a few hundred).
    static let maxNodes = 100_000

    static func parse(_ text: String, file: String) throws(ScenarioError) -> ScenarioNode {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw ScenarioError(file: file, line: nil, path: nil, message: "YAML parser could not start")
        }
        defer { yaml_parser_delete(&parser) }
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { buffer throws(ScenarioError) -> ScenarioNode in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
            var builder = TreeBuilder(file: file)
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else {
                    let problem = parser.problem.map { String(cString: $0) } ?? "syntax error"
                    let context = parser.context.map { String(cString: $0) + ": " } ?? ""
                    throw ScenarioError(
                        file: file, line: Int(parser.problem_mark.line) + 1, path: nil,
                        message: "invalid YAML: \(context)\(problem)")
                }
                defer { yaml_event_delete(&event) }
                if try builder.take(&event) { break }
            }
            guard let root = builder.root else {
                throw ScenarioError(file: file, line: 1, path: nil, message: "the file holds no YAML document")
            }
            return root
        }
    }

    /// Folds events into a tree with an explicit stack (no recursion on input).
    private struct TreeBuilder {
        enum Open {
            case sequence([ScenarioNode], line: Int)
            case mapping([(key: String, value: ScenarioNode)], pendingKey: String?, line: Int)
        }

        let file: String
        var stack: [Open] = []
        var root: ScenarioNode?
        var documents = 0
        var nodes = 0

        init(file: String) { self.file = file }

        func failure(_ line: Int, _ message: String) -> ScenarioError {
            ScenarioError(file: file, line: line, path: nil, message: message)
        }

        /// Takes one event; true at the end of the stream.
        mutating func take(_ event: inout yaml_event_t) throws(ScenarioError) -> Bool {
            let line = Int(event.start_mark.line) + 1
            switch event.type {
            case YAML_STREAM_END_EVENT: return true
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                guard documents == 1 else { throw failure(line, "only one YAML document is allowed per file") }
            case YAML_ALIAS_EVENT: throw failure(line, "YAML aliases (*name) are not supported in scenarios")
            case YAML_SCALAR_EVENT:
                if event.data.scalar.anchor != nil { throw failure(line, "YAML anchors (&name) are not supported") }
                let text = String(
                    decoding: UnsafeBufferPointer(start: event.data.scalar.value, count: event.data.scalar.length),
                    as: UTF8.self)
                let plain = event.data.scalar.style == YAML_PLAIN_SCALAR_STYLE
                let isNull = plain && ["", "~", "null", "Null", "NULL"].contains(text)
                try add(isNull ? .null(line: line) : .scalar(text, quoted: !plain, line: line), key: text, line: line)
            case YAML_SEQUENCE_START_EVENT:
                if event.data.sequence_start.anchor != nil { throw failure(line, "YAML anchors are not supported") }
                try open(.sequence([], line: line), line: line)
            case YAML_MAPPING_START_EVENT:
                if event.data.mapping_start.anchor != nil { throw failure(line, "YAML anchors are not supported") }
                try open(.mapping([], pendingKey: nil, line: line), line: line)
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                guard let top = stack.popLast() else { throw failure(line, "unbalanced YAML structure") }
                switch top {
                case .sequence(let items, let start): try add(.sequence(items, line: start), key: nil, line: line)
                case .mapping(let members, _, let start): try add(.mapping(members, line: start), key: nil, line: line)
                }
            default: break
            }
            return false
        }

        private mutating func open(_ container: Open, line: Int) throws(ScenarioError) {
            guard stack.count < YAMLScenarioParser.maxDepth else {
                throw failure(line, "nested deeper than \(YAMLScenarioParser.maxDepth) levels")
            }
            if case .mapping(_, let pendingKey, _)? = stack.last, pendingKey == nil {
                throw failure(line, "a mapping key must be plain text, not a list or mapping")
            }
            stack.append(container)
        }

        /// Adds a finished node to its parent (as a key when the parent mapping waits for one).
        private mutating func add(_ node: ScenarioNode, key: String?, line: Int) throws(ScenarioError) {
            nodes += 1
            guard nodes <= YAMLScenarioParser.maxNodes else { throw failure(line, "document too large") }
            guard let top = stack.popLast() else {
                root = node
                return
            }
            switch top {
            case .sequence(var items, let start):
                items.append(node)
                stack.append(.sequence(items, line: start))
            case .mapping(var members, let pendingKey, let start):
                if let pendingKey {
                    members.append((pendingKey, node))
                    stack.append(.mapping(members, pendingKey: nil, line: start))
                } else {
                    guard case .scalar = node, let key else {
                        stack.append(top)
                        throw failure(line, "a mapping key must be plain text")
                    }
                    guard !members.contains(where: { $0.key == key }) else {
                        throw failure(line, "duplicate key '\(key)'")
                    }
                    stack.append(.mapping(members, pendingKey: key, line: start))
                }
            }
        }
    }
}
