// An `a=` line kept verbatim, so unknown attributes survive a parse/serialize round trip.

/// `a=name` or `a=name:value`.
public struct SDPAttribute: Hashable, Sendable {
    public var name: String
    public var value: String?

    public init(_ name: String, _ value: String? = nil) {
        self.name = name
        self.value = value
    }

    var line: String { value.map { "a=\(name):\($0)" } ?? "a=\(name)" }
}

extension Array where Element == SDPAttribute {
    /// The value of the first attribute named `name` (empty string for flags).
    public func value(_ name: String) -> String? { first { $0.name == name }.map { $0.value ?? "" } }
    public func values(_ name: String) -> [String] { filter { $0.name == name }.map { $0.value ?? "" } }
    public func has(_ name: String) -> Bool { contains { $0.name == name } }
}
