// Fuzzes the RTP parser: any input must parse or throw a typed error; accepted packets must
// re-serialize and re-parse to the same packet.
import PolyMedia

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let view = try? RTPPacketView(parsing: bytes) else { return 0 }
    _ = view.extensionElements?.mid(id: 1)
    _ = view.extensionElements?.audioLevel(id: 2)
    let packet = RTPPacket(header: RTPHeader(view), payload: Array(view.payload), paddingCount: view.paddingCount)
    guard let again = try? packet.serialized() else { fatalError("an accepted packet must serialize") }
    guard let reparsed = try? RTPPacket(parsing: again), reparsed == packet else {
        fatalError("serialize/parse round trip changed the packet")
    }
    return 0
}
