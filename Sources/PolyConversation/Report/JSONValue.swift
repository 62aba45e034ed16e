// A JSON value with keys kept in the order written, so report.json reads in a sensible order.
import PolyCore

public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.text() == rhs.text() }

    public static func optional(_ value: Double?) -> JSONValue { value.map { .number($0) } ?? .null }
    public static func optional(_ value: Bool?) -> JSONValue { value.map { .bool($0) } ?? .null }
    public static func optional(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }

    /// Compact (`pretty` false, one line: NDJSON) or indented text.
    public func text(pretty: Bool = false) -> String {
        var out = ""
        write(into: &out, pretty: pretty, indent: 0)
        return out
    }

    private func write(into out: inout String, pretty: Bool, indent: Int) {
        let newline = pretty ? "\n" + String(repeating: "  ", count: indent + 1) : ""
        let close = pretty ? "\n" + String(repeating: "  ", count: indent) : ""
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let value): out += Self.format(value)
        case .string(let value): out += JSONString.quote(value)
        case .array(let items):
            guard !items.isEmpty else { return out += "[]" }
            out += "["
            for (i, item) in items.enumerated() {
                out += (i > 0 ? "," : "") + newline
                item.write(into: &out, pretty: pretty, indent: indent + 1)
            }
            out += close + "]"
        case .object(let members):
            guard !members.isEmpty else { return out += "{}" }
            out += "{"
            for (i, (key, value)) in members.enumerated() {
                out += (i > 0 ? "," : "") + newline + JSONString.quote(key) + (pretty ? ": " : ":")
                value.write(into: &out, pretty: pretty, indent: indent + 1)
            }
            out += close + "}"
        }
    }

    /// Whole numbers without a fraction, others to 0.1 µs; non-finite as null (JSON has no NaN).
    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        // Trailing zeros go, and then a bare trailing point ("12.0000" → "12", never "12.", which is not JSON).
        var text = String(cFormat: "%.4f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }

}
