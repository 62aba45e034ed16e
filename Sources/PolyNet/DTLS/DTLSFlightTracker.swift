// Tells records of a fresh flight from OpenSSL's re-sends of earlier flights, so the endpoint can drop
// the re-sends it did not schedule (OpenSSL re-sends by itself when its own wall-clock timer has expired).
import PolyCore

struct DTLSFlightTracker {
    private var highestMessageSequence = -1
    private var sentChangeCipherSpec = false
    private var sentEncryptedHandshake = false
    /// What had been sent before the current OpenSSL call: anything at or below it is a re-send.
    private var before = (sequence: -1, changeCipherSpec: false, encryptedHandshake: false)

    /// Marks the start of an OpenSSL call.
    mutating func beginCall() {
        before = (highestMessageSequence, sentChangeCipherSpec, sentEncryptedHandshake)
    }

    /// Splits OpenSSL's output into records, keeping each with whether it re-sends an earlier flight.
    /// DTLS 1.2 without renegotiation: handshake messages in epoch 0 carry a growing message_seq; a
    /// ChangeCipherSpec and an encrypted handshake record (Finished) are sent once per handshake.
    mutating func classify(_ bytes: [UInt8]) -> [(record: ArraySlice<UInt8>, isResend: Bool)] {
        var reader = ByteReader(bytes)
        var result: [(ArraySlice<UInt8>, Bool)] = []
        while !reader.isAtEnd {
            let start = reader.position
            guard let type = try? reader.readUInt8(), (try? reader.skip(2)) != nil,
                let epoch = try? reader.readUInt16(), (try? reader.skip(6)) != nil,
                let length = try? reader.readUInt16(), let body = try? reader.readBytes(Int(length))
            else {
                result.append((bytes[start...], false))  // not a record we understand: pass it on untouched
                break
            }
            result.append((bytes[start..<reader.position], isResend(type: type, epoch: epoch, body: body)))
        }
        return result
    }

    private mutating func isResend(type: UInt8, epoch: UInt16, body: ArraySlice<UInt8>) -> Bool {
        switch (type, epoch) {
        case (20, _):
            sentChangeCipherSpec = true
            return before.changeCipherSpec
        case (22, 0):
            var reader = ByteReader(body)
            guard (try? reader.skip(4)) != nil, let sequence = try? reader.readUInt16() else { return false }
            highestMessageSequence = max(highestMessageSequence, Int(sequence))
            return Int(sequence) <= before.sequence
        case (22, _):
            sentEncryptedHandshake = true
            return before.encryptedHandshake
        default:
            return false
        }
    }
}
