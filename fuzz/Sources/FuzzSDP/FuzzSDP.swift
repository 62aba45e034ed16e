// Fuzzes the SDP parser: never trap; whatever parses serializes to text that parses back to the
// same text (serialization is a fixed point), and the typed accessors never trap either.
import PolyNet

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSDP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let session = try? SessionDescription(parsing: text) else { return 0 }
    let serialized = session.text
    guard let again = try? SessionDescription(parsing: serialized) else {
        preconditionFailure("serialized SDP does not parse")
    }
    precondition(again.text == serialized, "SDP serialization is not a fixed point")
    _ = (session.bundle, session.iceParameters, session.fingerprints, session.setup)
    for media in session.media {
        _ = (media.direction, media.rtpMaps, media.ssrcs, media.extmaps, media.candidates, media.opusPayloadType)
        if let pt = media.opusPayloadType { _ = media.fmtp(pt) }
    }
    return 0
}
