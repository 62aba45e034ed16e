// A small JSON parser into `ScenarioNode`: Foundation's JSONSerialization gives no line numbers and
// folds booleans into numbers, and the errors must name the line like YAML's do.

/// Parses JSON text (RFC 8259) into a node tree. Bounded nesting; never traps on any input.
struct JSONScenarioParser {
    static let maxDepth = 64
    private let bytes: [UInt8]
    private let file: String
    private var index = 0
    private var line = 1

    init(_ text: String, file: String) {
        bytes = Array(text.utf8)
        self.file = file
    }

    mutating func parse() throws(ScenarioError) -> ScenarioNode {
        skipSpace()
        let node = try value(depth: 0)
        skipSpace()
        guard index == bytes.count else { throw failure("unexpected text after the end of the document") }
        return node
    }

    private func failure(_ message: String) -> ScenarioError {
        ScenarioError(file: file, line: line, path: nil, message: "invalid JSON: " + message)
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x0A: line += 1
            case 0x20, 0x09, 0x0D: break
            default: return
            }
            index += 1
        }
    }

    private mutating func value(depth: Int) throws(ScenarioError) -> ScenarioNode {
        guard depth < Self.maxDepth else { throw failure("nested deeper than \(Self.maxDepth) levels") }
        guard index < bytes.count else { throw failure("unexpected end of the document") }
        let startLine = line
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .scalar(try string(), quoted: true, line: startLine)
        case UInt8(ascii: "t"):
            try literal("true")
            return .scalar("true", quoted: false, line: startLine)
        case UInt8(ascii: "f"):
            try literal("false")
            return .scalar("false", quoted: false, line: startLine)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null(line: startLine)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .scalar(try number(), quoted: false, line: startLine)
        default: throw failure("expected a value, found '\(Character(Unicode.Scalar(bytes[index])))'")
        }
    }

    private mutating func literal(_ word: String) throws(ScenarioError) {
        let expected = Array(word.utf8)
        guard index + expected.count <= bytes.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw failure("expected '\(word)'")
        }
        index += expected.count
    }

    private mutating func number() throws(ScenarioError) -> String {
        let start = index
        let allowed = Set("+-0123456789.eE".utf8)
        while index < bytes.count, allowed.contains(bytes[index]) { index += 1 }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard Double(text) != nil else { throw failure("bad number '\(text)'") }
        return text
    }

    private mutating func string() throws(ScenarioError) -> String {
        index += 1  // opening quote
        var out: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"): out += Array(String(try unicodeEscape()).utf8)
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                default: throw failure("bad escape in a string")
                }
            case 0x00..<0x20: throw failure("control character in a string")
            default: out.append(byte)
            }
        }
        throw failure("unterminated string")
    }

    /// `\uXXXX`, with surrogate pairs; a lone surrogate becomes U+FFFD.
    private mutating func unicodeEscape() throws(ScenarioError) -> Character {
        let first = try hex4()
        if (0xD800..<0xDC00).contains(first), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
            bytes[index + 1] == UInt8(ascii: "u")
        {
            index += 2
            let second = try hex4()
            if (0xDC00..<0xE000).contains(second) {
                let scalar = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                return Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")
            }
        }
        return Character(Unicode.Scalar(first) ?? "\u{FFFD}")
    }

    private mutating func hex4() throws(ScenarioError) -> UInt32 {
        guard index + 4 <= bytes.count,
            let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
        else { throw failure("bad \\u escape") }
        index += 4
        return value
    }

    private mutating func array(depth: Int) throws(ScenarioError) -> ScenarioNode {
        let startLine = line
        index += 1
        var items: [ScenarioNode] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .sequence(items, line: startLine)
        }
        while true {
            skipSpace()
            items.append(try value(depth: depth + 1))
            skipSpace()
            guard index < bytes.count else { throw failure("unterminated list") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw failure("expected ',' or ']' in a list") }
            index += 1
            return .sequence(items, line: startLine)
        }
    }

    private mutating func object(depth: Int) throws(ScenarioError) -> ScenarioNode {
        let startLine = line
        index += 1
        var members: [(key: String, value: ScenarioNode)] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .mapping(members, line: startLine)
        }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw failure("expected a key in quotes")
            }
            let key = try string()
            guard !members.contains(where: { $0.key == key }) else { throw failure("duplicate key '\(key)'") }
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':'") }
            index += 1
            skipSpace()
            members.append((key, try value(depth: depth + 1)))
            skipSpace()
            guard index < bytes.count else { throw failure("unterminated object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw failure("expected ',' or '}' in an object") }
            index += 1
            return .mapping(members, line: startLine)
        }
    }
}
