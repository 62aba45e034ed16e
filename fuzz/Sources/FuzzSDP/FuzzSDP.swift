// Fuzzes the SDP parser: never trap; whatever parses serializes to text that parses back to the
// same text (serialization is a fixed point), the typed accessors never trap, and answers parse.
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
    // Whatever parses can be answered (or refused with a typed error), and the answer parses.
    if let answer = try? SDPNegotiation.answer(to: session, local: local) {
        precondition((try? SessionDescription(parsing: answer.text)) != nil, "answer does not parse")
    }
    return 0
}

let local = SDPLocalParameters(
    credentials: ICECredentials(ufrag: "abcd", password: "0123456789abcdefghijklmn"),
    candidates: [Candidate(foundation: "1", priority: 1, address: TransportAddress("10.0.0.1:5000")!, kind: .host)],
    fingerprint: SDPFingerprint(algorithm: "sha-256", bytes: Array(repeating: 0xAB, count: 32)), sessionID: 1)
