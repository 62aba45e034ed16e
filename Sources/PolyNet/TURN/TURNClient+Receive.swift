// Bytes from the TURN server: datagrams or a deframed stream, each a STUN message or ChannelData.
import PolyCore

extension TURNClient {
    mutating func receive(_ bytes: [UInt8], at now: Instant) {
        switch configuration.transport {
        case .udp:
            receiveFrame(bytes, at: now)
        case .stream:
            deframer.append(bytes)
            while !isStopped {
                do {
                    guard let frame = try deframer.nextFrame() else { return }
                    receiveFrame(frame, at: now)
                } catch {
                    fail(.malformedStream(server: server))
                }
            }
        }
    }

    /// One message. Anything malformed, unexpected or not ours is dropped without a trace: the server's
    /// 5-tuple is not authenticated, so what arrives on it proves nothing until it passes the checks.
    private mutating func receiveFrame(_ frame: [UInt8], at now: Instant) {
        guard let first = frame.first else { return }
        if ChannelData.startsChannelData(first) {
            guard let message = try? ChannelData(parsing: frame), let peer = peersByChannel[message.channel]
            else { return }
            emit(.data(message.data, from: peer))
            return
        }
        guard STUNMessage.looksLikeSTUN(frame), let message = try? STUNMessage(decoding: frame) else { return }
        switch message.messageClass {
        case .successResponse, .errorResponse:
            handleResponse(message, bytes: frame, at: now)
        case .indication where message.method == .data:
            // Data indication (RFC 8656 §11.4): only from peers we gave a permission.
            guard isAllocated, let peer = message.xorPeerAddress, let data = message.data,
                permissions[peer.ip] != nil
            else { return }
            emit(.data(data, from: peer))
        case .indication, .request:
            return
        }
    }
}
