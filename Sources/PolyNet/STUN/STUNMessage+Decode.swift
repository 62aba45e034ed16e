// Strict STUN decoding: every length is checked against the bytes really there (RFC 8489 §5, §14).
import PolyCore

extension STUNMessage {
    /// Decodes one datagram. Throws `STUNError` for anything malformed; never traps.
    public init(decoding bytes: [UInt8]) throws(STUNError) {
        var reader = ByteReader(bytes)
        let header: (type: UInt16, length: UInt16, cookie: UInt32)
        do {
            header = (try reader.readUInt16(), try reader.readUInt16(), try reader.readUInt32())
        } catch { throw .truncated }
        guard header.type & 0xC000 == 0 else { throw .notSTUN }
        guard header.cookie == Self.magicCookie else { throw .badMagicCookie }
        guard header.length % 4 == 0 else { throw .badLength }
        guard Int(header.length) + Self.headerLength == bytes.count else { throw .truncated }
        let idBytes: [UInt8]
        do { idBytes = Array(try reader.readBytes(12)) } catch { throw .truncated }

        let type = header.type
        let method = (type & 0x000F) | ((type & 0x00E0) >> 1) | ((type & 0x3E00) >> 2)
        let classBits = UInt8(((type & 0x0010) >> 4) | ((type & 0x0100) >> 7))
        self.init(
            method: STUNMethod(rawValue: method), messageClass: STUNClass(rawValue: classBits)!,
            transactionID: STUNTransactionID(unchecked: idBytes))

        var afterIntegrity = false
        while !reader.isAtEnd {
            let start = reader.offset
            let attributeType: UInt16
            let value: ArraySlice<UInt8>
            do {
                attributeType = try reader.readUInt16()
                let length = Int(try reader.readUInt16())
                guard length <= reader.remaining else { throw STUNError.attributeOverrun(type: attributeType) }
                value = try reader.readBytes(length)
                try reader.skip(min((4 - length % 4) % 4, reader.remaining))
            } catch let error as STUNError {
                throw error
            } catch {
                throw .truncated
            }
            if attributeType == STUNAttribute.Code.fingerprint {
                try Self.checkFingerprint(value, bytes: bytes, attributeStart: start, isLast: reader.isAtEnd)
                hasFingerprint = true
                continue
            }
            // RFC 8489 §14.5: everything after MESSAGE-INTEGRITY but FINGERPRINT is ignored.
            if afterIntegrity { continue }
            if attributeType == STUNAttribute.Code.messageIntegrity {
                guard value.count == HMACSHA1.length else { throw .malformedAttribute(type: attributeType) }
                integrityOffset = start
                integrityMAC = Array(value)
                afterIntegrity = true
                continue
            }
            if let attribute = try Self.decodeAttribute(attributeType, value, transactionID: transactionID) {
                attributes.append(attribute)
            } else if attributeType < 0x8000 {
                unknownRequiredAttributes.append(attributeType)
            }
        }
    }

    /// Checks MESSAGE-INTEGRITY (HMAC-SHA1 with `key`) against the exact bytes this message was decoded from.
    public func verifyIntegrity(of bytes: [UInt8], key: [UInt8]) -> Bool {
        guard let offset = integrityOffset, offset + 24 <= bytes.count else { return false }
        var covered = Array(bytes[0..<offset])
        let length = UInt16(offset - Self.headerLength + 24)
        covered[2] = UInt8(length >> 8)
        covered[3] = UInt8(length & 0xFF)
        let expected = HMACSHA1.mac(key: key, data: covered)
        // Constant-time comparison: no early exit on the first differing byte.
        return zip(expected, integrityMAC).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private static func checkFingerprint(
        _ value: ArraySlice<UInt8>, bytes: [UInt8], attributeStart: Int, isLast: Bool
    ) throws(STUNError) {
        guard isLast, value.count == 4 else { throw .badFingerprint }
        let carried = value.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard carried == CRC32.checksum(bytes[0..<attributeStart]) ^ fingerprintXor else { throw .badFingerprint }
    }

    private static func decodeAttribute(
        _ type: UInt16, _ value: ArraySlice<UInt8>, transactionID: STUNTransactionID
    ) throws(STUNError) -> STUNAttribute? {
        typealias Code = STUNAttribute.Code
        var reader = ByteReader(value)
        do {
            switch type {
            case Code.mappedAddress:
                return .mappedAddress(try decodeAddress(&reader, type: type, xor: nil))
            case Code.xorMappedAddress:
                return .xorMappedAddress(try decodeAddress(&reader, type: type, xor: transactionID))
            case Code.xorPeerAddress:
                return .xorPeerAddress(try decodeAddress(&reader, type: type, xor: transactionID))
            case Code.xorRelayedAddress:
                return .xorRelayedAddress(try decodeAddress(&reader, type: type, xor: transactionID))
            case Code.username, Code.software, Code.realm, Code.nonce:
                // RFC 8489 §14.3, §14.7, §14.9, §14.10: all under 763 bytes of UTF-8.
                guard value.count <= 763, let text = String(validating: value, as: UTF8.self) else {
                    throw STUNError.malformedAttribute(type: type)
                }
                switch type {
                case Code.username: return .username(text)
                case Code.software: return .software(text)
                case Code.realm: return .realm(text)
                default: return .nonce(text)
                }
            case Code.channelNumber:
                guard value.count == 4 else { throw STUNError.malformedAttribute(type: type) }
                return .channelNumber(try reader.readUInt16())
            case Code.lifetime:
                guard value.count == 4 else { throw STUNError.malformedAttribute(type: type) }
                return .lifetime(try reader.readUInt32())
            case Code.requestedTransport:
                guard value.count == 4 else { throw STUNError.malformedAttribute(type: type) }
                return .requestedTransport(try reader.readUInt8())
            case Code.data:
                return .data(Array(value))
            case Code.errorCode:
                _ = try reader.readUInt16()
                let errorClass = Int(try reader.readUInt8() & 0x07)
                let number = Int(try reader.readUInt8())
                let reason = String(decoding: try reader.readBytes(reader.remaining), as: UTF8.self)
                guard (3...6).contains(errorClass), number < 100 else { throw STUNError.malformedAttribute(type: type) }
                return .errorCode(code: errorClass * 100 + number, reason: reason)
            case Code.priority:
                guard value.count == 4 else { throw STUNError.malformedAttribute(type: type) }
                return .priority(try reader.readUInt32())
            case Code.useCandidate:
                guard value.isEmpty else { throw STUNError.malformedAttribute(type: type) }
                return .useCandidate
            case Code.iceControlling, Code.iceControlled:
                guard value.count == 8 else { throw STUNError.malformedAttribute(type: type) }
                let tieBreaker = try reader.readUInt64()
                return type == Code.iceControlling ? .iceControlling(tieBreaker) : .iceControlled(tieBreaker)
            case Code.unknownAttributes:
                guard value.count % 2 == 0 else { throw STUNError.malformedAttribute(type: type) }
                return .other(type: type, value: Array(value))
            default:
                return nil
            }
        } catch let error as STUNError {
            throw error
        } catch {
            throw .malformedAttribute(type: type)
        }
    }

    private static func decodeAddress(
        _ reader: inout ByteReader<ArraySlice<UInt8>>, type: UInt16, xor transactionID: STUNTransactionID?
    ) throws -> TransportAddress {
        _ = try reader.readUInt8()
        let family = try reader.readUInt8()
        var port = try reader.readUInt16()
        let size: Int
        switch family {
        case 0x01: size = 4
        case 0x02: size = 16
        default: throw STUNError.malformedAttribute(type: type)
        }
        guard reader.remaining == size else { throw STUNError.malformedAttribute(type: type) }
        var address = Array(try reader.readBytes(size))
        if let transactionID {
            port ^= UInt16(magicCookie >> 16)
            let mask = xorMask(transactionID)
            for i in address.indices { address[i] ^= mask[i] }
        }
        return TransportAddress(ip: IPAddress(bytes: address)!, port: port)
    }

    /// Magic cookie followed by the transaction id: the XOR mask for addresses (RFC 8489 §14.2).
    static func xorMask(_ transactionID: STUNTransactionID) -> [UInt8] {
        [0x21, 0x12, 0xA4, 0x42] + transactionID.bytes
    }
}
