// CPU per packet at the client, direct vs through a TURN/UDP channel (RFC 8656 ChannelData), with a real
// coturn on 127.0.0.1. An echo thread sends every datagram back to where it came from. The client thread does
// what the engine does per packet each way: SRTP-protect an RTP packet the size of a 20 ms Opus frame, send
// it, wait for its echo, receive it and unprotect it; through the relay, the TURN client wraps the packet
// (`.send`) and unwraps the echo (`.received` → `.data`), as MediaEndpoint drives it. Only the client thread's
// CPU time counts (CLOCK_THREAD_CPUTIME_ID): the echo thread, coturn and the time spent waiting are outside it.
// Arms alternate, `--reps` times each. A third figure is the TURN client's own work alone, in this thread
// with no socket: wrapping one packet and unwrapping one ChannelData message, as the relay arm does each
// exchange. Issue #16's target: ChannelData adds ≤ 5 % to the direct per-packet cost. The relayed exchange
// also crosses coturn (another process, two more hops): its extra CPU here includes more than the framing.
import Foundation
import PolyCore
import PolyMedia
import PolyNet
import PolyVoiceTesting

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Waits until `socket` has a datagram (or `timeout` ms pass); false on timeout.
func waitReadable(_ socket: UDPSocket, timeout: Int32) -> Bool {
    var descriptor = pollfd(fd: socket.fileDescriptor, events: Int16(POLLIN), revents: 0)
    return poll(&descriptor, 1, timeout) == 1
}

/// Sends every datagram back to its source, until stopped.
final class EchoThread: @unchecked Sendable {
    let socket: UDPSocket
    private let stopped = ManagedAtomicFlag()

    init() throws { socket = try UDPSocket(bindingTo: TransportAddress(ip: .loopbackV4, port: 0)) }

    func start() {
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 2048)
            while !stopped.isSet {
                guard waitReadable(socket, timeout: 50) else { continue }
                buffer.withUnsafeMutableBytes { raw in
                    while let (count, source) = try? socket.receive(into: raw) {
                        _ = try? socket.send(UnsafeRawBufferPointer(rebasing: raw[..<count]), to: source)
                    }
                }
            }
        }
    }

    func stop() { stopped.set() }
}

/// A flag one thread sets and another reads.
final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

/// The client side: one socket, one SRTP session keyed to unprotect its own packets, optionally a TURN client.
final class Client {
    let socket: UDPSocket
    let srtp: SRTPSession
    var turn: TURNClient?
    let server: TransportAddress
    private var packet = [UInt8](repeating: 0, count: 1500)
    private var received = [UInt8](repeating: 0, count: 1500)
    private var sequence: UInt16 = 0
    /// A 20 ms Opus frame at 32 kb/s: 80 bytes of payload after the 12-byte RTP header.
    static let payloadBytes = 80

    init(server: TransportAddress) throws {
        socket = try UDPSocket(bindingTo: TransportAddress(ip: .loopbackV4, port: 0))
        let key = (0..<16).map { UInt8($0) }
        let salt = (0..<14).map { UInt8(100 + $0) }
        srtp = try SRTPSession(
            keyingMaterial: SRTPKeyingMaterial(
                profile: .aes128CmSha1_80, localMasterKey: key, localMasterSalt: salt, remoteMasterKey: key,
                remoteMasterSalt: salt))
        self.server = server
    }

    /// Allocates, then binds a channel to `peer` (the media then travels as ChannelData).
    func relay(to peer: TransportAddress, credentials: TURNRESTCredentials) throws {
        turn = TURNClient(
            configuration: TURNClientConfiguration(
                server: server, serverName: "\(server)", transport: .udp, username: credentials.username,
                password: credentials.password, randomSeed: 1))
        turn?.handle(.start, at: .now())
        var bound = false
        var allocated = false
        let deadline = Date().addingTimeInterval(5)
        while !bound, Date() < deadline {
            while let output = turn?.pollOutput(at: .now()) {
                switch output {
                case .transmit(let bytes): _ = try socket.send(bytes, to: server)
                case .allocated:
                    allocated = true
                    turn?.handle(.bindChannel(peer), at: .now())
                case .channelBound: bound = true
                case .failed(let error): throw BenchError("TURN: \(error)")
                default: break
                }
            }
            guard !bound, waitReadable(socket, timeout: 20) else { continue }
            try received.withUnsafeMutableBytes { raw in
                while let (count, _) = try socket.receive(into: raw) {
                    turn?.handle(.received(Array(raw[..<count])), at: .now())
                }
            }
        }
        guard bound else { throw BenchError(allocated ? "no channel bound" : "no allocation") }
    }

    /// One packet out and its echo back; returns false if the echo did not come.
    func exchange(with peer: TransportAddress) throws -> Bool {
        sequence &+= 1
        let length = try packet.withUnsafeMutableBytes { raw in
            raw[0] = 0x80
            raw[1] = 111
            raw[2] = UInt8(sequence >> 8)
            raw[3] = UInt8(sequence & 0xFF)
            for index in 12..<(12 + Self.payloadBytes) {
                raw[index] = UInt8(truncatingIfNeeded: index &+ Int(sequence))
            }
            return try srtp.protectRTP(raw, length: 12 + Self.payloadBytes)
        }
        let now = Instant.now()
        if turn != nil {
            turn?.handle(.send(Array(packet[..<length]), to: peer), at: now)
            while let output = turn?.pollOutput(at: now) {
                if case .transmit(let bytes) = output { _ = try socket.send(bytes, to: server) }
            }
        } else {
            _ = try packet.withUnsafeBytes {
                try socket.send(UnsafeRawBufferPointer(rebasing: $0[..<length]), to: peer)
            }
        }
        guard waitReadable(socket, timeout: 1000) else { return false }
        let arrivedAt = Instant.now()
        return try received.withUnsafeMutableBytes { raw in
            guard let (count, _) = try socket.receive(into: raw) else { return false }
            guard turn != nil else { return try srtp.unprotectRTP(raw, length: count) == 12 + Self.payloadBytes }
            turn?.handle(.received(Array(raw[..<count])), at: arrivedAt)
            while let output = turn?.pollOutput(at: arrivedAt) {
                guard case .data(var bytes, _) = output else { continue }
                try srtp.unprotectRTP(&bytes)
                return bytes.count == 12 + Self.payloadBytes
            }
            return false
        }
    }
}

extension Client {
    /// Microseconds of CPU for the TURN client's part of one exchange: `.send` → ChannelData out, and a
    /// ChannelData message in → `.data`, polled until empty as MediaEndpoint's pump does. No socket.
    func framingOnly(peer: TransportAddress, packets: Int) throws -> Double {
        guard var turn, let channel = turn.boundChannel(to: peer) else { throw BenchError("no channel") }
        let payload = [UInt8](repeating: 0x5A, count: 12 + Self.payloadBytes + 10)  // SRTP adds a 10-byte tag
        let inbound = ChannelData(channel: channel, data: payload).encoded(padded: false)
        var delivered = 0
        let start = threadCPUSeconds()
        for _ in 0..<packets {
            let now = Instant.now()
            turn.handle(.send(Array(payload), to: peer), at: now)
            while let output = turn.pollOutput(at: now) {
                if case .transmit(let bytes) = output { delivered &+= bytes.count }
            }
            inbound.withUnsafeBytes { raw in turn.handle(.received(Array(raw)), at: now) }
            while let output = turn.pollOutput(at: now) {
                if case .data(let bytes, _) = output { delivered &+= bytes.count }
            }
        }
        let elapsed = threadCPUSeconds() - start
        guard delivered == packets * (2 * payload.count + ChannelData.headerLength) else {
            throw BenchError("framing delivered \(delivered) bytes")
        }
        return elapsed / Double(packets) * 1e6
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// Microseconds of client-thread CPU per exchange (one packet each way).
func measure(_ client: Client, peer: TransportAddress, packets: Int) throws -> Double {
    let start = threadCPUSeconds()
    for _ in 0..<packets {
        guard try client.exchange(with: peer) else { throw BenchError("an echo was lost") }
    }
    return (threadCPUSeconds() - start) / Double(packets) * 1e6
}

let arguments = CommandLine.arguments
func option(_ name: String, default value: Int) -> Int {
    arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil }
        ?? value
}
let packets = option("--packets", default: 20_000)
let reps = option("--reps", default: 5)
do {
    let coturn = try CoturnServer()
    let echo = try EchoThread()
    echo.start()
    defer { echo.stop() }
    let direct = try Client(server: coturn.address)
    let relayed = try Client(server: coturn.address)
    let credentials = TURNRESTCredentials(
        secret: coturn.secret, name: "bench", expiry: Int(Date().timeIntervalSince1970) + 3600)
    try relayed.relay(to: echo.socket.localAddress, credentials: credentials)
    // Warm-up, then alternate the arms.
    _ = try measure(direct, peer: echo.socket.localAddress, packets: 2000)
    _ = try measure(relayed, peer: echo.socket.localAddress, packets: 2000)
    var directTimes: [Double] = []
    var relayedTimes: [Double] = []
    var framingTimes: [Double] = []
    for _ in 0..<reps {
        directTimes.append(try measure(direct, peer: echo.socket.localAddress, packets: packets))
        relayedTimes.append(try measure(relayed, peer: echo.socket.localAddress, packets: packets))
        framingTimes.append(try relayed.framingOnly(peer: echo.socket.localAddress, packets: packets))
    }
    let framingShare = median(framingTimes) / median(directTimes)
    let relayedRatio = median(relayedTimes) / median(directTimes)
    print("RelayPacketBench: client CPU per packet sent and received (µs), \(packets) packets × \(reps) reps each")
    print(
        String(
            format: "  direct exchange            median %6.2f  min %6.2f", median(directTimes), directTimes.min() ?? 0)
    )
    print(
        String(
            format: "  TURN/UDP channel exchange  median %6.2f  min %6.2f", median(relayedTimes),
            relayedTimes.min() ?? 0))
    print(
        String(
            format: "  ChannelData framing alone  median %6.2f  min %6.2f", median(framingTimes),
            framingTimes.min() ?? 0))
    print(
        String(
            format: "  framing / direct %.3f (target ≤ 0.05); relayed exchange / direct %.3f", framingShare,
            relayedRatio))
    let result: [String: Any] = [
        "direct_us_per_packet": median(directTimes), "relayed_us_per_packet": median(relayedTimes),
        "channeldata_framing_us_per_packet": median(framingTimes), "channeldata_framing_over_direct": framingShare,
        "relayed_over_direct": relayedRatio, "packets_each": packets * reps,
    ]
    let json = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
    print("RESULT_JSON " + String(decoding: json, as: UTF8.self))
} catch {
    FileHandle.standardError.write(Data("RelayPacketBench: \(error)\n".utf8))
    exit(1)
}
