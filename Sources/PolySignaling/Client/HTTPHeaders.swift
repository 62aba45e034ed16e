// Header fields of the project's HTTP messages (HTTPClientRequest, HTTPClientResponse): in order, names compared
// without regard to case (RFC 9110 §5.1), repeated fields kept. No Foundation networking types, so the library that
// sends them links no URLSession and no libcurl (docs/MEMORY.md).

/// HTTP header fields in the order they were added or received.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral,
    CustomStringConvertible
{
    public typealias Field = (name: String, value: String)

    public private(set) var fields: [Field]

    public init(_ fields: [Field] = []) { self.fields = fields }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = []
        for (name, value) in elements { self[name] = value }
    }

    /// Every value of `name` in order (any case of the name).
    public func values(for name: String) -> [String] {
        fields.filter { Self.same($0.name, name) }.map(\.value)
    }

    /// The value of `name`, repeated fields joined with ", " (as HTTP allows); nil if absent. Setting replaces
    /// every field of that name with one at the first one's place (at the end if there was none); nil removes.
    public subscript(name: String) -> String? {
        get {
            let values = values(for: name)
            return values.isEmpty ? nil : values.joined(separator: ", ")
        }
        set {
            let first = fields.firstIndex { Self.same($0.name, name) }
            fields.removeAll { Self.same($0.name, name) }
            guard let newValue else { return }
            fields.insert((name, newValue), at: first ?? fields.count)  // nothing before `first` was removed
        }
    }

    /// Adds a field, keeping any of the same name (a repeated header).
    public mutating func add(name: String, value: String) { fields.append((name, value)) }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// Same names (in any case) with the same values in the same order.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { same($0.name, $1.name) && $0.value == $1.value }
    }

    /// Names only: values may be tokens.
    public var description: String { "[" + fields.map(\.name).joined(separator: ", ") + "]" }

    private static func same(_ a: String, _ b: String) -> Bool {
        a.lowercased() == b.lowercased()
    }
}
