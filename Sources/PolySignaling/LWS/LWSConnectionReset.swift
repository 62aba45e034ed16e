// Dropping a connection whose peer has stopped reading (service thread only).
import CWebSockets

#if canImport(Glibc)
    import Glibc
#endif

enum LWSConnectionReset {
    /// Resets the TCP connection at once: an RST goes out and whatever is queued for the peer is discarded.
    /// A polite close cannot work here: its close frame, or even its FIN, waits behind data the peer never
    /// reads, and libwebsockets would hold the connection for its close timeouts. The reset socket reports
    /// POLLHUP, on which libwebsockets frees the connection (with its CLOSED callback) on the next service.
    static func reset(_ wsi: OpaquePointer) {
        let fd = lws_get_socket_fd(wsi)
        guard fd >= 0 else { return }
        var abortive = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &abortive, socklen_t(MemoryLayout<linger>.size))
        // connect(2) to AF_UNSPEC disconnects a TCP socket; for an established one Linux sends an RST.
        var unspecified = sockaddr()
        unspecified.sa_family = sa_family_t(AF_UNSPEC)
        _ = connect(fd, &unspecified, socklen_t(MemoryLayout<sockaddr>.size))
    }
}
