// Fuzzes the STUN decoder and the ICE agent's datagram handling: never trap, and whatever decodes
// re-encodes to a message that decodes to the same attributes.
import PolyCore
import PolyNet

let key = Array("VOkJxbRl1RmTxUk/WvJxBt".utf8)
let local = TransportAddress("10.0.0.1:3478")!
let remote = TransportAddress("10.0.0.2:5000")!

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSTUN(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let message = try? STUNMessage(decoding: bytes) {
        _ = message.verifyIntegrity(of: bytes, key: key)
        let again = try? STUNMessage(decoding: message.encoded(integrityKey: key))
        precondition(again == message, "STUN re-encoding changed the message")
    }
    // The same bytes as a datagram to a lite and a checking full agent (fixed credentials so that
    // seeds can carry valid checks).
    for mode in [ICEMode.lite, .full] {
        var agent = ICEAgent(
            configuration: ICEConfiguration(
                mode: mode, credentials: ICECredentials(ufrag: "evtj", password: "VOkJxbRl1RmTxUk/WvJxBt"),
                tieBreaker: 1, randomSeed: 1))
        agent.handle(.gather(localAddresses: [local]), at: .zero)
        agent.handle(
            .remoteParameters(
                ICERemoteParameters(
                    credentials: ICECredentials(ufrag: "h6vY", password: "VOkJxbRl1RmTxUk/WvJxBt"),
                    candidates: [Candidate(foundation: "1", priority: 1, address: remote, kind: .host)])),
            at: .zero)
        agent.handle(.datagram(bytes: bytes, from: remote, to: local), at: .milliseconds(1))
        while agent.pollOutput(at: .milliseconds(1)) != nil {}
    }
    return 0
}
