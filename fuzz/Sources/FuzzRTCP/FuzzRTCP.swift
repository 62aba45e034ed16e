// Fuzzes the RTCP compound parser: any input must parse or throw a typed error; what parses must
// re-serialize to a datagram that parses to the same packets.
import PolyMedia

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTCP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let packets = try? RTCPCompound.parse(bytes), !packets.isEmpty else { return 0 }
    let again = RTCPCompound.serialize(packets)
    guard let reparsed = try? RTCPCompound.parse(again) else { fatalError("serialized RTCP must parse") }
    // Text fields may change when invalid UTF-8 is replaced, so compare counts and report blocks.
    guard reparsed.count == packets.count else { fatalError("round trip changed the packet count") }
    for (a, b) in zip(packets, reparsed) {
        switch (a, b) {
        case (.senderReport(let x), .senderReport(let y)): if x != y { fatalError("SR changed") }
        case (.receiverReport(let x), .receiverReport(let y)): if x != y { fatalError("RR changed") }
        case (.sourceDescription, .sourceDescription), (.goodbye, .goodbye): break
        default: fatalError("round trip changed a packet type")
        }
    }
    return 0
}
