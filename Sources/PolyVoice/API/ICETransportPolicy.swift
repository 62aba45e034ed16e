// Which network paths a call may use, as the W3C `RTCIceTransportPolicy`.

/// `.all`: direct (host, server-reflexive) and relayed paths, the best that works. `.relay`: only through
/// a TURN server from the bridge's `iceServers`, so the call never reveals or uses a local address.
public enum ICETransportPolicy: String, Hashable, Sendable, CaseIterable {
    case all
    case relay
}
