// Per-connection deadlines for the server shell (sans-IO: the caller passes the time in).
import PolyCore

/// Deadlines by key; `expired(at:)` removes and returns those that have passed, soonest first.
public struct DeadlineTable<Key: Hashable & Sendable>: Sendable {
    private var deadlines: [Key: Instant] = [:]

    public init() {}

    public var count: Int { deadlines.count }
    public var isEmpty: Bool { deadlines.isEmpty }

    public mutating func set(_ key: Key, _ deadline: Instant) { deadlines[key] = deadline }

    public mutating func clear(_ key: Key) { deadlines[key] = nil }

    public func deadline(_ key: Key) -> Instant? { deadlines[key] }

    /// The keys whose deadline is at or before `now` (removed from the table).
    public mutating func expired(at now: Instant) -> [Key] {
        let due = deadlines.filter { $0.value <= now }.sorted { $0.value < $1.value }.map(\.key)
        for key in due { deadlines[key] = nil }
        return due
    }
}
