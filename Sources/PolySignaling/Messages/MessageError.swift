// Typed decoding failures that name the field, never the values (which may be secrets).
import FoundationEssentials

/// Why a JSON message could not be decoded. Carries field paths only, never field values.
public enum MessageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not JSON at all (or not UTF-8).
    case invalidJSON
    /// A mandatory field is absent or null.
    case missingField(String)
    /// A field has the wrong JSON type.
    case wrongType(String)
    /// A field has the right type but an unusable value (e.g. an empty URL).
    case invalidValue(String)

    public var description: String {
        switch self {
        case .invalidJSON: return "not valid JSON"
        case .missingField(let path): return "missing field \(path)"
        case .wrongType(let path): return "field \(path) has the wrong type"
        case .invalidValue(let path): return "field \(path) has an invalid value"
        }
    }
}

/// JSON encoding and decoding of protocol messages with `MessageError`s instead of `DecodingError`s.
public enum MessageCoding {
    /// Decodes `T` from `data`; unknown fields are ignored.
    public static func decode<T: Decodable>(_ type: T.Type, from data: some DataProtocol) throws(MessageError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(data))
        } catch let error as MessageError {
            throw error
        } catch let DecodingError.keyNotFound(key, context) {
            throw .missingField(path(context.codingPath + [key]))
        } catch let DecodingError.valueNotFound(_, context) {
            throw .missingField(path(context.codingPath))
        } catch let DecodingError.typeMismatch(_, context) {
            throw .wrongType(path(context.codingPath))
        } catch let DecodingError.dataCorrupted(context) {
            throw context.codingPath.isEmpty ? .invalidJSON : .invalidValue(path(context.codingPath))
        } catch {
            throw .invalidJSON
        }
    }

    /// Encodes `value` as compact JSON with sorted keys (stable bytes for tests).
    public static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Our message types contain only strings, numbers and arrays: encoding cannot fail.
        return (try? Array(encoder.encode(value))) ?? Array("{}".utf8)
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}
