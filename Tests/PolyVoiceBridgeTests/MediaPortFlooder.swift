import Foundation
import PolyCore
import PolyNet

/// Floods one media port on 127.0.0.1 with five kinds of datagram in turn, paced to a rate, on a thread of
/// its own: random bytes (first byte outside every RFC 7983 range the bridge knows), well-formed binding
/// requests whose USERNAME names no call, DTLS ClientHellos and SRTP from addresses no check mapped, and
/// SRTP with a wrong tag sent from a live caller's own address (IPv4 with IP_HDRINCL on a raw socket, so
/// the source is the caller's). It counts what it sent of each; nothing is sent anywhere but `target`.
final class MediaPortFlooder: @unchecked Sendable {
    struct Sent: Sendable, CustomStringConvertible {
        var randomBytes: UInt64 = 0
        var unknownUfragSTUN: UInt64 = 0
        var dtlsClientHellos: UInt64 = 0
        var unknownSourceSRTP: UInt64 = 0
        var spoofedSRTP: UInt64 = 0
        var elapsedSeconds = 0.0
        var total: UInt64 { randomBytes + unknownUfragSTUN + dtlsClientHellos + unknownSourceSRTP + spoofedSRTP }
        var description: String {
            "random \(randomBytes), stun \(unknownUfragSTUN), dtls \(dtlsClientHellos), srtp "
                + "\(unknownSourceSRTP), spoofed \(spoofedSRTP) in \(elapsedSeconds) s"
        }
    }

    struct SetupError: Error, CustomStringConvertible { let description: String }

    private let target: TransportAddress
    private let spoofed: [TransportAddress]
    private let sockets: [UDPSocket]
    private let raw: Int32
    private let random: [[UInt8]]
    private let stun: [[UInt8]]
    private let clientHello: [UInt8]

    init(target: TransportAddress, spoofing callers: [TransportAddress]) throws {
        guard target.ip == .loopbackV4, callers.allSatisfy({ $0.ip == .loopbackV4 }) else {
            throw SetupError(description: "the flooder sends to and spoofs 127.0.0.1 only")
        }
        self.target = target
        spoofed = callers
        sockets = try (0..<8).map { _ in try UDPSocket(bindingTo: TransportAddress(ip: .loopbackV4, port: 0)) }
        raw = socket(AF_INET, Int32(SOCK_RAW.rawValue), Int32(IPPROTO_RAW))
        guard raw >= 0 else {
            throw SetupError(description: "raw socket: \(String(cString: strerror(errno))) (needs root)")
        }
        var generator = SeededRandom(seed: 19)
        random = (0..<256).map { _ in
            let length = 12 + Int(generator.next() % 180)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            // 64–127 (TURN channels, unassigned) or 192–255: never STUN, DTLS or RTP to the demux.
            bytes[0] = UInt8(64 + generator.next() % 64) | (generator.next() % 2 == 0 ? 0 : 0x80)
            return bytes
        }
        stun = (0..<64).map { index in
            let ufrag = index % 4 == 0 ? "a-much-longer-ufrag-\(index)" : String(format: "unk%05d", index)
            return STUNMessage(
                messageClass: .request, transactionID: .random(using: &generator),
                attributes: [.username("\(ufrag):caller"), .priority(0x6E00_01FF), .iceControlling(7)]
            ).encoded(integrityKey: Array("not-the-password".utf8))
        }
        clientHello = Self.makeClientHello(&generator)
    }

    deinit {
        close(raw)
        for socket in sockets { socket.close() }
    }

    /// A DTLS 1.2 ClientHello record as a browser's first flight looks (cipher suites, use_srtp), unsent
    /// by any stack: the port must not create DTLS state for it.
    static func makeClientHello(_ generator: inout SeededRandom) -> [UInt8] {
        var body: [UInt8] = [0xFE, 0xFD]  // client_version DTLS 1.2
        body += (0..<32).map { _ in UInt8(truncatingIfNeeded: generator.next()) }  // random
        body += [0]  // session id
        body += [0]  // cookie
        body += [0, 4, 0xC0, 0x2B, 0xC0, 0x2F]  // ECDHE-ECDSA/RSA-AES128-GCM-SHA256
        body += [1, 0]  // compression: null
        let extensions: [UInt8] = [0x00, 0x0E, 0x00, 0x05, 0x00, 0x02, 0x00, 0x01, 0x00]  // use_srtp AES_CM_80
        body += [UInt8(extensions.count >> 8), UInt8(extensions.count & 0xFF)] + extensions
        let length = body.count
        let handshake: [UInt8] =
            [
                1, 0, UInt8(length >> 8), UInt8(length & 0xFF), 0, 0, 0, 0, 0, 0, UInt8(length >> 8),
                UInt8(length & 0xFF),
            ]
            + body
        let record: [UInt8] =
            [22, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, UInt8(handshake.count >> 8), UInt8(handshake.count & 0xFF)]
        return record + handshake
    }

    /// SRTP-shaped: an RTP header (payload type 111, an SSRC no call uses), 60 bytes of "ciphertext" and a
    /// 10-byte tag that cannot verify.
    static func srtp(sequence: UInt16, into buffer: inout [UInt8]) {
        buffer.removeAll(keepingCapacity: true)
        buffer += [0x80, 111, UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
        let timestamp = UInt32(sequence) &* 960
        buffer += [UInt8(timestamp >> 24), UInt8((timestamp >> 16) & 0xFF), UInt8((timestamp >> 8) & 0xFF), 0]
        buffer += [0xDE, 0xAD, 0xBE, 0xEF]
        for index in 0..<70 { buffer.append(UInt8(truncatingIfNeeded: Int(sequence) &* 31 &+ index)) }
    }

    /// Sends for `seconds` at `rate` datagrams per second (kinds in turn) and returns what went out.
    func run(rate: Int, seconds: Double) async throws -> Sent {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { [self] in
                continuation.resume(with: Result { try flood(rate: rate, seconds: seconds) })
            }
            thread.name = "media flooder"
            thread.start()
        }
    }

    private func flood(rate: Int, seconds: Double) throws -> Sent {
        var sent = Sent()
        var datagram: [UInt8] = []
        var packet = [UInt8](repeating: 0, count: 1500)
        let start = Instant.now()
        var index: UInt64 = 0
        while true {
            let elapsed = (Instant.now() - start).inSeconds
            if elapsed >= seconds { break }
            let due = UInt64(elapsed * Double(rate))
            if index >= due {
                usleep(100)
                continue
            }
            while index < due {
                let socket = sockets[Int(index % UInt64(sockets.count))]
                switch index % 5 {
                case 0:
                    if (try? socket.send(random[Int(index / 5 % 256)], to: target)) != nil { sent.randomBytes += 1 }
                case 1:
                    if (try? socket.send(stun[Int(index / 5 % 64)], to: target)) != nil { sent.unknownUfragSTUN += 1 }
                case 2:
                    if (try? socket.send(clientHello, to: target)) != nil { sent.dtlsClientHellos += 1 }
                case 3:
                    Self.srtp(sequence: UInt16(truncatingIfNeeded: index), into: &datagram)
                    if (try? socket.send(datagram, to: target)) != nil { sent.unknownSourceSRTP += 1 }
                default:
                    Self.srtp(sequence: UInt16(truncatingIfNeeded: index), into: &datagram)
                    let source = spoofed[Int(index / 5 % UInt64(spoofed.count))]
                    if sendSpoofed(datagram, from: source, packet: &packet) { sent.spoofedSRTP += 1 }
                }
                index += 1
            }
        }
        sent.elapsedSeconds = (Instant.now() - start).inSeconds
        return sent
    }

    /// One IPv4/UDP datagram from `source` to `target` on the raw socket (the kernel fills in the IP
    /// length, id and checksum; a UDP checksum of zero means none, as IPv4 allows).
    private func sendSpoofed(_ payload: [UInt8], from source: TransportAddress, packet: inout [UInt8]) -> Bool {
        let length = 28 + payload.count
        packet[0] = 0x45
        packet[1] = 0
        packet[2] = UInt8(length >> 8)
        packet[3] = UInt8(length & 0xFF)
        for offset in 4..<8 { packet[offset] = 0 }
        packet[8] = 64  // TTL
        packet[9] = 17  // UDP
        packet[10] = 0
        packet[11] = 0
        packet[12] = 127
        packet[13] = 0
        packet[14] = 0
        packet[15] = 1
        packet[16] = 127
        packet[17] = 0
        packet[18] = 0
        packet[19] = 1
        packet[20] = UInt8(source.port >> 8)
        packet[21] = UInt8(source.port & 0xFF)
        packet[22] = UInt8(target.port >> 8)
        packet[23] = UInt8(target.port & 0xFF)
        packet[24] = UInt8((8 + payload.count) >> 8)
        packet[25] = UInt8((8 + payload.count) & 0xFF)
        packet[26] = 0
        packet[27] = 0
        for (offset, byte) in payload.enumerated() { packet[28 + offset] = byte }
        var destination = sockaddr_in()
        destination.sin_family = sa_family_t(AF_INET)
        destination.sin_port = target.port.bigEndian
        destination.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let result = packet.withUnsafeBytes { bytes in
            withUnsafePointer(to: &destination) { address in
                address.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(raw, bytes.baseAddress, length, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        return result == length
    }
}
