// Fuzzes the Opus packet inspection a receiver runs on every packet: the first frame must lie inside the packet,
// and the LBRR check must never read past it (the address sanitizer sees any read outside the copy made here).
import PolyAudio

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOpusPacket(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    bytes.withUnsafeBufferPointer { packet in
        if let frame = OpusPacketInspection.firstFrame(packet) {
            guard frame.lowerBound >= 1, frame.upperBound <= packet.count, !frame.isEmpty else {
                fatalError("first frame \(frame) outside a packet of \(packet.count) bytes")
            }
        }
        _ = OpusPacketInspection.carriesLBRR(packet)
    }
    return 0
}
