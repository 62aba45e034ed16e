// STUN encoding with optional MESSAGE-INTEGRITY (short-term credentials) and FINGERPRINT.
import PolyCore

extension STUNMessage {
    /// Serializes the message; appends MESSAGE-INTEGRITY when `integrityKey` is given
    /// (ICE: the password's UTF-8 bytes) and FINGERPRINT when `fingerprint` is true.
    public func encoded(integrityKey: [UInt8]? = nil, fingerprint: Bool = true) -> [UInt8] {
        var writer = ByteWriter(capacity: 128)
        let m = method.rawValue
        let c = UInt16(messageClass.rawValue)
        let type = (m & 0x000F) | ((m & 0x0070) << 1) | ((m & 0x0F80) << 2) | ((c & 1) << 4) | ((c & 2) << 7)
        writer.write(type)
        writer.write(UInt16(0))
        writer.write(Self.magicCookie)
        writer.write(contentsOf: transactionID.bytes)
        for attribute in attributes { Self.encode(attribute, transactionID: transactionID, into: &writer) }

        if let integrityKey {
            writer.patch(UInt16(writer.count - Self.headerLength + 24), at: 2)
            let mac = HMACSHA1.mac(key: integrityKey, data: writer.bytes)
            writer.write(STUNAttribute.Code.messageIntegrity)
            writer.write(UInt16(HMACSHA1.length))
            writer.write(contentsOf: mac)
        }
        if fingerprint {
            writer.patch(UInt16(writer.count - Self.headerLength + 8), at: 2)
            let crc = CRC32.checksum(writer.bytes) ^ Self.fingerprintXor
            writer.write(STUNAttribute.Code.fingerprint)
            writer.write(UInt16(4))
            writer.write(crc)
        }
        writer.patch(UInt16(writer.count - Self.headerLength), at: 2)
        return writer.bytes
    }

    private static func encode(
        _ attribute: STUNAttribute, transactionID: STUNTransactionID, into writer: inout ByteWriter
    ) {
        var value = ByteWriter(capacity: 24)
        switch attribute {
        case .mappedAddress(let address):
            encodeAddress(address, xor: nil, into: &value)
        case .xorMappedAddress(let address), .xorPeerAddress(let address), .xorRelayedAddress(let address):
            encodeAddress(address, xor: transactionID, into: &value)
        case .username(let text), .software(let text), .realm(let text), .nonce(let text):
            value.write(contentsOf: Array(text.utf8))
        case .errorCode(let code, let reason):
            value.write(UInt16(0))
            value.write(UInt8(code / 100 & 0x07))
            value.write(UInt8(code % 100))
            value.write(contentsOf: Array(reason.utf8))
        case .priority(let priority):
            value.write(priority)
        case .useCandidate:
            break
        case .iceControlling(let tieBreaker), .iceControlled(let tieBreaker):
            value.write(tieBreaker)
        case .channelNumber(let channel):
            value.write(channel)
            value.write(UInt16(0))
        case .lifetime(let seconds):
            value.write(seconds)
        case .requestedTransport(let protocolNumber):
            value.write(protocolNumber)
            value.write(contentsOf: [0, 0, 0] as [UInt8])
        case .other(_, let bytes), .data(let bytes):
            value.write(contentsOf: bytes)
        }
        writer.write(attribute.type)
        writer.write(UInt16(value.count))
        writer.write(contentsOf: value.bytes)
        for _ in 0..<((4 - value.count % 4) % 4) { writer.write(UInt8(0)) }
    }

    private static func encodeAddress(
        _ address: TransportAddress, xor transactionID: STUNTransactionID?, into writer: inout ByteWriter
    ) {
        writer.write(UInt8(0))
        writer.write(UInt8(address.family == .v4 ? 0x01 : 0x02))
        var bytes = address.ip.bytes
        if let transactionID {
            writer.write(address.port ^ UInt16(magicCookie >> 16))
            let mask = xorMask(transactionID)
            for i in bytes.indices { bytes[i] ^= mask[i] }
        } else {
            writer.write(address.port)
        }
        writer.write(contentsOf: bytes)
    }
}
