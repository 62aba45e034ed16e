// The few String operations the libraries used from Foundation, on the standard library alone.

extension StringProtocol {
    /// Without leading and trailing white space and newlines (Foundation's `trimmingCharacters(in:
    /// .whitespacesAndNewlines)`).
    public func trimmingWhitespace() -> String { trimming { $0.isWhitespace } }

    /// Without leading and trailing characters that `isTrimmed` accepts.
    public func trimming(where isTrimmed: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !isTrimmed($0) }), let last = lastIndex(where: { !isTrimmed($0) })
        else { return "" }
        return String(self[first...last])
    }

    /// Padded with spaces on the right to `width` characters (longer text is left as it is).
    public func padded(to width: Int) -> String {
        String(self) + String(repeating: " ", count: Swift.max(0, width - count))
    }
}
