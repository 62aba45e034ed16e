// The RTP work of one packet, in Swift (PolyMedia) and through the C baseline.
//
// Receive side: parse the datagram (which validates every extension element in one walk) and read
// the audio level. Send side: write an outgoing packet from the stream's header encoded once
// (`RTPHeaderTemplate`: copy, patch marker/sequence/timestamp/audio level) and the parsed payload.
// The C side (Benchmarks/CSRTPBench) does the same: one validating walk that picks the audio level
// up, then a copy of its own header template, patched the same way, and of the payload.
import CSRTPBench
import PolyMedia

/// One packet: parse `datagram` (the bytes of `raw`), read its audio level, write it out again
/// from `template` with the parsed payload. Returns a checksum term.
@inline(__always) func parseAndSerialize<Bytes: RandomAccessCollection>(
    _ datagram: Bytes, raw: UnsafeRawBufferPointer, template: RTPHeaderTemplate, audioLevelID: UInt8, index: Int,
    into out: UnsafeMutableRawBufferPointer
) -> Int64 where Bytes.Element == UInt8, Bytes.Index == Int {
    let view: RTPPacketView<Bytes>
    do { view = try RTPPacketView(parsing: datagram) } catch { fatalError("parse failed: \(error)") }
    let level = view.audioLevel(id: audioLevelID)
    let payload = UnsafeRawBufferPointer(rebasing: raw[view.payloadRange])
    let written: Int
    do {
        written = try template.write(
            sequenceNumber: view.sequenceNumber &+ UInt16(truncatingIfNeeded: index), timestamp: view.timestamp,
            marker: view.marker, audioLevel: level, payload: payload, into: out)
    } catch {
        fatalError("serialize failed: \(error)")
    }
    return Int64(written) &+ Int64(level?.level ?? 0) &+ Int64(out[3])  // wrapping, like the C sum
}

// The measured loops are nonisolated, non-inlined functions over their own arguments: no actor
// checks per packet, and a symbol of their own for `callgrind.sh` to count instructions in.

/// The per-packet path: the view parses the received bytes through an `UnsafeRawBufferPointer`.
@inline(never) func swiftRTPLoop(
    _ n: Int, packet: UnsafeRawBufferPointer, template: RTPHeaderTemplate, audioLevelID: UInt8,
    output: UnsafeMutableRawBufferPointer
) -> Int64 {
    var sum: Int64 = 0
    for i in 0..<n {
        sum &+= parseAndSerialize(
            packet, raw: packet, template: template, audioLevelID: audioLevelID, index: i, into: output)
    }
    return sum
}

/// The same with the view over the `[UInt8]` itself (convenient off the hot path; shown for reference).
@inline(never) func swiftRTPArrayLoop(
    _ n: Int, packet: [UInt8], template: RTPHeaderTemplate, audioLevelID: UInt8,
    output: UnsafeMutableRawBufferPointer
) -> Int64 {
    var sum: Int64 = 0
    packet.withUnsafeBytes { raw in
        for i in 0..<n {
            sum &+= parseAndSerialize(
                packet, raw: raw, template: template, audioLevelID: audioLevelID, index: i, into: output)
        }
    }
    return sum
}

/// The C baseline's loop over the same packet.
func cRTPLoop(_ n: Int, packet: UnsafeRawBufferPointer, audioLevelID: UInt8, output: UnsafeMutableRawBufferPointer)
    -> Int64
{
    csb_rtp_parse_serialize(
        packet.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(packet.count),
        output.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(output.count), Int32(audioLevelID), Int32(n))
}
