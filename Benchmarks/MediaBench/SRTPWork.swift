// The SRTP work of one packet: protect with the sender, unprotect with the receiver, parse the
// result; in Swift through PolyMedia's SRTPSession, in C through the same libsrtp2 calls.
import CSRTPBench
import PolyMedia

/// Per packet: copy `packet` into `buffer`, give it the next sequence number, protect, unprotect,
/// parse and read the audio level. Returns a checksum.
@inline(never) func swiftSRTPLoop(
    _ n: Int, send: SRTPSession, receive: SRTPSession, packet: UnsafeRawBufferPointer, audioLevelID: UInt8,
    buffer: UnsafeMutableRawBufferPointer, sequence: inout UInt16
) -> Int64 {
    var sum: Int64 = 0
    for _ in 0..<n {
        sequence &+= 1
        buffer.copyMemory(from: packet)
        buffer[2] = UInt8(sequence >> 8)
        buffer[3] = UInt8(truncatingIfNeeded: sequence)
        let length: Int
        do {
            let protected = try send.protectRTP(buffer, length: packet.count)
            length = try receive.unprotectRTP(buffer, length: protected)
        } catch {
            fatalError("SRTP failed: \(error)")
        }
        let received = UnsafeRawBufferPointer(rebasing: buffer[0..<length])
        guard let view = try? RTPPacketView(parsing: received) else { fatalError("parse failed") }
        let level = view.audioLevel(id: audioLevelID)
        sum &+= Int64(length) &+ Int64(level?.level ?? 0) &+ Int64(view.payloadRange.count)
    }
    return sum
}

/// The C baseline: the same per-packet steps on a libsrtp2 sender/receiver pair.
func cSRTPLoop(
    _ n: Int, pair: OpaquePointer, packet: UnsafeRawBufferPointer, audioLevelID: UInt8,
    buffer: UnsafeMutableRawBufferPointer, sequence: inout UInt16
) -> Int64 {
    defer { sequence &+= UInt16(truncatingIfNeeded: n) }
    return csb_srtp_round_trips(
        pair, packet.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(packet.count),
        buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(buffer.count), Int32(audioLevelID),
        sequence &+ 1, Int32(n))
}
