// A datagram path injected into MediaTransport instead of sockets it binds itself: the bridge's shared
// media port gives every call one, demultiplexed by ICE ufrag and then by 5-tuple.
import PolyNet

/// Where a `MediaTransport` sends and receives its datagrams when it does not own sockets.
///
/// Every method is called on `loop`'s thread (the transport runs there too).
public protocol MediaDatagramLink: AnyObject, Sendable {
    /// The loop the link delivers on; the transport runs on the same one.
    var loop: EventLoop { get }
    /// The bound address datagrams arrive on (the host candidate before any advertised mapping).
    var localAddress: TransportAddress { get }
    /// Starts delivering this call's datagrams to `receive`, on the loop thread.
    func open(receive: @escaping EventLoop.DatagramHandler)
    /// Sends one datagram (dropped if the kernel buffer is full, as UDP may).
    func send(_ bytes: UnsafeRawBufferPointer, to destination: TransportAddress)
    /// The endpoint's current local ICE ufrag: at start and after every ICE restart. STUN checks whose
    /// USERNAME starts with it belong to this call.
    func setLocalUfrag(_ ufrag: String)
    /// Stops delivery and forgets this call's ufrags and addresses. Idempotent.
    func close()
}

extension MediaEndpoint {
    /// The local ICE username fragment now in use (changes on ICE restart).
    var localUfrag: String { ice.localCredentials.ufrag }
}
