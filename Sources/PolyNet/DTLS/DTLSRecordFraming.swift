// Checks that a datagram is a sequence of well-framed DTLS records before OpenSSL sees it.
import PolyCore

enum DTLSRecordFraming {
    /// Record content types DTLS 1.2 peers send (change_cipher_spec … tls12_cid).
    static let contentTypes: ClosedRange<UInt8> = 20...25

    /// Throws `.malformedDatagram` unless `bytes` is one or more complete DTLS records (RFC 6347 §4.1):
    /// type, version 0xFEXX, epoch, 48-bit sequence number, length, then exactly `length` bytes.
    static func validate(_ bytes: [UInt8]) throws(DTLSError) {
        guard !bytes.isEmpty else { throw .malformedDatagram("empty datagram") }
        var reader = ByteReader(bytes)
        do {
            while !reader.isAtEnd {
                let type = try reader.readUInt8()
                guard contentTypes.contains(type) else {
                    throw DTLSError.malformedDatagram("record type \(type) at byte \(reader.offset - 1)")
                }
                guard try reader.readUInt8() == 0xFE else {
                    throw DTLSError.malformedDatagram("not a DTLS version at byte \(reader.offset - 1)")
                }
                try reader.skip(1 + 2 + 6)  // minor version, epoch, sequence number
                let length = Int(try reader.readUInt16())
                try reader.skip(length)
            }
        } catch let error as DTLSError {
            throw error
        } catch {
            throw .malformedDatagram("truncated record")
        }
    }
}
