// Typed reads from a `ScenarioNode` that fail with the file, line, key path and what was expected.

/// A node at a key path, with typed accessors.
struct NodeReader {
    let node: ScenarioNode
    let path: String
    let file: String

    func failure(_ message: String) -> ScenarioError {
        ScenarioError(file: file, line: node.line, path: path, message: message)
    }

    func expected(_ what: String) -> ScenarioError {
        failure("expected \(what), found \(node.kindDescription)")
    }

    /// The members of a mapping; unknown keys are an error naming the ones allowed.
    func mapping(allowed: [String]) throws(ScenarioError) -> [String: NodeReader] {
        guard case .mapping(let members, _) = node else { throw expected("a mapping") }
        var out: [String: NodeReader] = [:]
        for member in members {
            let child = NodeReader(node: member.value, path: join(member.key), file: file)
            guard allowed.contains(member.key) else {
                throw ScenarioError(
                    file: file, line: member.value.line, path: child.path,
                    message: "unknown key '\(member.key)' (expected one of: \(allowed.joined(separator: ", ")))")
            }
            out[member.key] = child
        }
        return out
    }

    func sequence() throws(ScenarioError) -> [NodeReader] {
        guard case .sequence(let items, _) = node else { throw expected("a list") }
        return items.enumerated().map { NodeReader(node: $1, path: "\(path)[\($0)]", file: file) }
    }

    /// Text: a quoted string, or plain YAML text that is not a number or boolean (quote those).
    func string() throws(ScenarioError) -> String {
        guard case .scalar(let text, let quoted, _) = node else { throw expected("text") }
        if !quoted, Double(text) != nil || ["true", "false", "True", "False", "TRUE", "FALSE"].contains(text) {
            throw failure("expected text, found \(node.kindDescription) (put it in quotes)")
        }
        return text
    }

    func nonEmptyString(maxLength: Int = 10_000) throws(ScenarioError) -> String {
        let text = try string()
        guard !text.trimmingWhitespace().isEmpty else { throw failure("must not be empty") }
        guard text.count <= maxLength else { throw failure("longer than \(maxLength) characters") }
        return text
    }

    func number(in range: ClosedRange<Double>) throws(ScenarioError) -> Double {
        guard case .scalar(let text, false, _) = node, let value = Double(text), value.isFinite else {
            throw expected("a number")
        }
        guard range.contains(value) else {
            throw failure(
                "must be from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound)), not \(text)")
        }
        return value
    }

    func integer(in range: ClosedRange<Int>) throws(ScenarioError) -> Int {
        let value = try number(in: Double(range.lowerBound)...Double(range.upperBound))
        guard value.rounded() == value else { throw expected("a whole number") }
        return Int(value)
    }

    func bool() throws(ScenarioError) -> Bool {
        guard case .scalar(let text, false, _) = node else { throw expected("true or false") }
        switch text {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default: throw expected("true or false")
        }
    }

    private func join(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    static func format(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
