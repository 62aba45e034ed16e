// Walking the elements of an RFC 8285 extension block in place (no copies).
import PolyCore

/// One RFC 8285 header extension element: its local ID and the range of its data in the datagram.
public struct RTPHeaderExtensionElement: Sendable, Equatable {
    public let id: UInt8
    /// Absolute indices of the element's data inside the datagram.
    public let dataRange: Range<Int>
}

/// The elements of an extension block, read lazily from the datagram.
///
/// Padding bytes (ID 0) are skipped; a one-byte element with ID 15 ends the block (RFC 8285 §4.2).
public struct RTPHeaderExtensionElements<Bytes: RandomAccessCollection>: Sequence, Sendable
where Bytes.Element == UInt8, Bytes.Index == Int, Bytes: Sendable, Bytes.SubSequence: Sendable {
    let bytes: Bytes
    let range: Range<Int>
    let form: RTPHeaderExtensionForm

    public func makeIterator() -> Iterator { Iterator(reader: ByteReader(bytes[range]), form: form) }

    /// Checks every element fits; the first malformed element's error otherwise.
    public func validate() throws(RTPParseError) {
        var iterator = makeIterator()
        while try iterator.nextElement() != nil {}
    }

    /// The data of the first element with `id`, or nil (malformed blocks yield nil).
    public func data(id: UInt8) -> Bytes.SubSequence? {
        for element in self where element.id == id { return bytes[element.dataRange] }
        return nil
    }

    public struct Iterator: IteratorProtocol {
        var reader: ByteReader<Bytes.SubSequence>
        let form: RTPHeaderExtensionForm
        var finished = false

        /// The next element; stops (returns nil) at the first malformed one.
        public mutating func next() -> RTPHeaderExtensionElement? { (try? nextElement()) ?? nil }

        /// The next element, nil at the end, or the error for a truncated element.
        public mutating func nextElement() throws(RTPParseError) -> RTPHeaderExtensionElement? {
            while !finished, let first = reader.peek() {
                var id: UInt8
                var length: Int
                do {
                    switch form {
                    case .oneByte:
                        _ = try reader.readUInt8()
                        id = first >> 4
                        length = Int(first & 0x0F) + 1
                        if id == 15 {
                            finished = true
                            return nil
                        }
                    case .twoByte:
                        _ = try reader.readUInt8()
                        id = first
                        if id == 0 { continue }
                        length = Int(try reader.readUInt8())
                    }
                } catch {
                    finished = true
                    throw .headerExtensionElementTruncated(id: first)
                }
                if id == 0 { continue }  // one-byte padding
                let start = reader.position
                do { try reader.skip(length) } catch {
                    finished = true
                    throw .headerExtensionElementTruncated(id: id)
                }
                return RTPHeaderExtensionElement(id: id, dataRange: start..<(start + length))
            }
            return nil
        }
    }
}
