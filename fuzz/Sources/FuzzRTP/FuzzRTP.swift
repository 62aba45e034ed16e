// Fuzzes the RTP parser: any input must parse or throw a typed error; accepted packets must
// re-serialize and re-parse to the same packet; extension lookups through the index recorded while
// parsing must agree with walking the block; a view over raw memory and one over a non-contiguous
// collection (the byte-wise field reads) must agree with the view over the array; the payload as an
// RFC 4733 telephone-event must parse (or throw when short) and round-trip.
import PolyMedia

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let view = try? RTPPacketView(parsing: bytes) else { return 0 }
    _ = view.extensionElements?.mid(id: 1)
    _ = view.extensionElements?.audioLevel(id: 2)
    for id in UInt8(0)...20 {
        let walked = view.extensionElements?.first { $0.id == id }
        guard view.extensionDataRange(id: id) == walked?.dataRange else { fatalError("index lookup of \(id) differs") }
        let level = walked.flatMap { RTPAudioLevel(data: bytes[$0.dataRange]) }
        guard view.audioLevel(id: id) == level else { fatalError("audio level of \(id) differs") }
    }
    bytes.withUnsafeBytes { raw in
        guard let rawView = try? RTPPacketView(parsing: raw) else { fatalError("raw view refused the packet") }
        guard RTPHeader(rawView) == RTPHeader(view), rawView.payloadRange == view.payloadRange else {
            fatalError("raw view differs")
        }
    }
    guard let lazyView = try? RTPPacketView(parsing: bytes.lazy.map { $0 }),
        RTPHeader(lazyView) == RTPHeader(view), lazyView.payloadRange == view.payloadRange
    else { fatalError("non-contiguous view differs") }
    // Any payload may be a telephone-event (RFC 4733): it parses from its first 4 bytes or throws, and
    // round-trips through its writer.
    view.payload.withUnsafeBytes { payload in
        guard let event = try? TelephoneEvent(parsing: payload) else {
            guard payload.count < TelephoneEvent.wireCount else { fatalError("4 bytes must parse as an event") }
            return
        }
        var written = [UInt8](repeating: 0, count: TelephoneEvent.wireCount)
        written.withUnsafeMutableBytes { event.write(into: $0) }
        guard written.withUnsafeBytes({ try? TelephoneEvent(parsing: $0) }) == event else {
            fatalError("telephone-event round trip changed it")
        }
    }
    let packet = RTPPacket(header: RTPHeader(view), payload: Array(view.payload), paddingCount: view.paddingCount)
    guard let again = try? packet.serialized() else { fatalError("an accepted packet must serialize") }
    guard let reparsed = try? RTPPacket(parsing: again), reparsed == packet else {
        fatalError("serialize/parse round trip changed the packet")
    }
    return 0
}
