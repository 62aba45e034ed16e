// Fuzzes events-socket frames (JSON text, PROTOCOL.md section 4) on both ends: the input is split into
// WebSocket fragments (a length byte, then that many bytes; the last fragment of each message has the
// length byte's top bit set) and reassembled by the MessageAssembler both ends use, with its size limit;
// each message is parsed as the bridge parses a first frame (AuthFrame) and as the client parses events
// (BridgeEvent); the raw input is also parsed as a close frame's payload.
// Invariants: never trap; the assembler never exceeds its limit; a parsed event's own frame text parses
// back to the same event; an auth frame re-encodes to one with the same token.
import PolyCore
import PolySignaling

let limit = 512

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEventsFrame(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = WebSocketClose(payload: bytes)
    var assembler = MessageAssembler(limit: limit)
    var reader = ByteReader(bytes)
    while let header = try? reader.readUInt8() {
        let length = min(Int(header & 0x7F), reader.remaining)
        guard let fragment = try? reader.readBytes(length) else { break }
        let outcome = fragment.withUnsafeBytes { assembler.append($0, final: header & 0x80 != 0) }
        precondition(assembler.pendingBytes <= limit, "assembler holds more than its limit")
        if case .message(let text) = outcome { check(text) }
    }
    // The whole input as one message, too.
    check(String(decoding: bytes, as: UTF8.self))
    return 0
}

func check(_ text: String) {
    if let event = BridgeEvent.parse(text) {
        precondition(BridgeEvent.parse(event.frameText) == event, "event frame does not round-trip")
    }
    if let frame = AuthFrame.parse(text) {
        let encoded = String(decoding: MessageCoding.encode(frame), as: UTF8.self)
        precondition(AuthFrame.parse(encoded)?.token == frame.token, "auth frame does not round-trip")
        precondition(frame.token.count <= 8 || !frame.description.contains(frame.token), "token in description")
    }
}
