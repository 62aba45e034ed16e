// An owned RFC 8285 extension block for sending: elements kept encoded, so re-sending costs no allocation.

/// The header extension elements of an outgoing packet, stored already encoded (without padding).
///
/// Build once per stream, then update an element's value in place (same length) per packet:
/// mutation of a uniquely owned array does not allocate.
public struct RTPHeaderExtensions: Sendable, Equatable {
    public let form: RTPHeaderExtensionForm
    /// Encoded elements, padding excluded.
    public private(set) var encodedElements: [UInt8] = []

    public init(form: RTPHeaderExtensionForm = .oneByte) { self.form = form }

    /// Why an element does not fit the chosen form.
    public enum ElementError: Error, Equatable, Sendable {
        case invalidID(UInt8)
        case invalidLength(Int)
    }

    /// Appends an element; one-byte form allows IDs 1–14 and 1–16 bytes, two-byte form IDs 1–255 and 0–255 bytes.
    public mutating func append<Data: Collection>(id: UInt8, data: Data) throws(ElementError)
    where Data.Element == UInt8 {
        switch form {
        case .oneByte:
            guard (1...14).contains(id) else { throw .invalidID(id) }
            guard (1...16).contains(data.count) else { throw .invalidLength(data.count) }
            encodedElements.append(id << 4 | UInt8(data.count - 1))
        case .twoByte:
            guard id != 0 else { throw .invalidID(id) }
            guard data.count <= 255 else { throw .invalidLength(data.count) }
            encodedElements.append(id)
            encodedElements.append(UInt8(data.count))
        }
        encodedElements.append(contentsOf: data)
    }

    /// Overwrites the data of the element `id` with bytes of the same length; false if absent or sized differently.
    @discardableResult
    public mutating func replace<Data: Collection>(id: UInt8, with data: Data) -> Bool where Data.Element == UInt8 {
        guard let range = dataRange(id: id), range.count == data.count else { return false }
        encodedElements.replaceSubrange(range, with: data)
        return true
    }

    /// The data of element `id`, if present.
    public func data(id: UInt8) -> ArraySlice<UInt8>? { dataRange(id: id).map { encodedElements[$0] } }

    private func dataRange(id: UInt8) -> Range<Int>? {
        let elements = RTPHeaderExtensionElements(
            bytes: encodedElements, range: encodedElements.indices, form: form)
        return elements.first { $0.id == id }?.dataRange
    }

    /// Bytes on the wire: 4-byte header plus elements padded to a 32-bit boundary.
    public var wireCount: Int { 4 + (encodedElements.count + 3) / 4 * 4 }
}
