// The 96-bit transaction id that pairs STUN responses with requests.

/// A STUN transaction id: 12 bytes, random per request.
public struct STUNTransactionID: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// Fails unless `bytes` has exactly 12 elements.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 12 else { return nil }
        self.bytes = bytes
    }

    /// A fresh id drawn from `generator`.
    public static func random(using generator: inout some RandomNumberGenerator) -> STUNTransactionID {
        STUNTransactionID(unchecked: (0..<12).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    public var description: String { bytes.map { String($0, radix: 16) }.joined() }
}
