// What a sans-IO core has queued for its shell, handed out one at a time by its `pollOutput`.

/// A first-in, first-out queue of a core's outputs, read as the shell polls.
///
/// Reading moves a head instead of shifting the array, and the array is emptied, keeping its storage, once all of
/// it was read: a core polled after every packet and tick neither allocates nor copies.
public struct OutputQueue<Element> {
    @usableFromInline var elements: [Element] = []
    @usableFromInline var head = 0

    public init() {}

    /// Nothing is left to read.
    @inlinable public var isEmpty: Bool { head >= elements.count }

    @inlinable public mutating func append(_ element: Element) { elements.append(element) }

    /// The oldest output not yet read, or nil when every one was.
    @inlinable public mutating func next() -> Element? {
        guard head < elements.count else {
            if head > 0 {  // usually nothing was queued: then skip the array's uniqueness check
                elements.removeAll(keepingCapacity: true)
                head = 0
            }
            return nil
        }
        defer { head += 1 }
        return elements[head]
    }
}

extension OutputQueue: Sendable where Element: Sendable {}
