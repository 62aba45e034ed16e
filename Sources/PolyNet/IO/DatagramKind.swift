// RFC 7983 demultiplexing of what arrives on one UDP port: STUN, DTLS, RTP/RTCP (and what we ignore).

/// What a datagram on the shared media port is, by its first byte (RFC 7983 §7).
public enum DatagramKind: Sendable, Equatable {
    case stun  // 0–3
    case zrtp  // 16–19 (not used by WebRTC: ignored)
    case dtls  // 20–63
    case turnChannel  // 64–79
    case rtp  // 128–191, RTCP packet type not in 192–223
    case rtcp  // 128–191 with an RTCP packet type 192–223 in the second byte (RFC 5761 §4)
    case unknown

    /// Classifies by the first byte alone; 128–191 is reported as `.rtp` (RTP or RTCP: see `classify(_:)`).
    public static func classify(firstByte: UInt8) -> DatagramKind {
        switch firstByte {
        case 0...3: .stun
        case 16...19: .zrtp
        case 20...63: .dtls
        case 64...79: .turnChannel
        case 128...191: .rtp
        default: .unknown
        }
    }

    /// Classifies a whole datagram, telling RTCP from RTP by the second byte (payload/packet type 192–223).
    public static func classify(_ datagram: UnsafeRawBufferPointer) -> DatagramKind {
        guard let first = datagram.first else { return .unknown }
        let kind = classify(firstByte: first)
        guard kind == .rtp, datagram.count >= 2 else { return kind }
        return (192...223).contains(datagram[1]) ? .rtcp : .rtp
    }

    public static func classify(_ datagram: [UInt8]) -> DatagramKind {
        datagram.withUnsafeBytes { classify($0) }
    }
}
