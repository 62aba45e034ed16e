// One end-to-end check against a real coturn on 127.0.0.1 (TURN REST-API credentials): the sans-IO client,
// driven over a real UDP socket by a small loop, allocates, relays both ways through a permission and a
// channel, and deallocates. Skipped where `turnserver` is not installed (scripts/setup.sh installs it).
import Foundation
import PolyCore
import Testing

@testable import PolyNet

@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/turnserver")))
struct TURNCoturnTests {
    /// A coturn child on 127.0.0.1 with a random port and a random REST-API secret.
    final class Coturn {
        let process = Process()
        let port: UInt16
        let secret = (0..<16).map { _ in String(UInt8.random(in: 0...255), radix: 16) }.joined()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pv-coturn-\(UUID().uuidString)")

        init() throws {
            port = try Self.freeUDPPort()
            let relayBase = Int.random(in: 40_000...59_000)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/turnserver")
            process.arguments = [
                "-n", "--no-cli", "--listening-ip=127.0.0.1", "--listening-port=\(port)", "--relay-ip=127.0.0.1",
                "--min-port=\(relayBase)", "--max-port=\(relayBase + 200)", "--use-auth-secret",
                "--static-auth-secret=\(secret)", "--realm=polyvoice.test", "--no-tls", "--no-dtls",
                "--allow-loopback-peers", "--pidfile=\(directory.path)/pid", "--db=\(directory.path)/turndb",
                "--log-file=\(directory.path)/log", "--simple-log", "--no-stdout-log",
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        deinit {
            // SIGKILL: the child inherits the test runner's signal mask, in which SIGTERM is blocked.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: directory)
        }

        /// TURN REST-API credentials: username `<expiry>:<name>`, password base64(HMAC-SHA1(secret, username)).
        func credentials(name: String) -> (username: String, password: String) {
            let username = "\(Int(Date().timeIntervalSince1970) + 3600):\(name)"
            let mac = HMACSHA1.mac(key: Array(secret.utf8), data: Array(username.utf8))
            return (username, Data(mac).base64EncodedString())
        }

        private static func freeUDPPort() throws -> UInt16 {
            let probe = try UDPSocket(bindingTo: TransportAddress("127.0.0.1:0")!)
            defer { probe.close() }
            return probe.localAddress.port
        }
    }

    /// Drives a client over a UDP socket on the real clock, and a plain peer socket, until `done` says so.
    struct Loop {
        var client: TURNClient
        let socket: UDPSocket
        let server: TransportAddress
        var events: [TURNOutput] = []

        mutating func handle(_ input: TURNInput) { client.handle(input, at: .now()) }

        /// Runs until `done(events)` or `seconds` pass; returns whether `done` was met.
        mutating func run(seconds: Double = 5, until done: ([TURNOutput]) -> Bool) throws -> Bool {
            let end = Instant.now() + .milliseconds(Int64(seconds * 1000))
            var buffer = [UInt8](repeating: 0, count: 2048)
            while Instant.now() < end {
                while let output = client.pollOutput(at: .now()) {
                    if case .transmit(let bytes) = output {
                        _ = try socket.send(bytes, to: server)
                    } else {
                        events.append(output)
                    }
                }
                if done(events) { return true }
                let wait = min(client.nextDeadline().map { $0 - .now() } ?? .milliseconds(20), .milliseconds(20))
                var descriptor = pollfd(fd: socket.fileDescriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&descriptor, 1, Int32(max(wait.inMilliseconds, 0)))
                while let received = try buffer.withUnsafeMutableBytes({ try socket.receive(into: $0) }) {
                    if received.source == server {
                        client.handle(.received(Array(buffer.prefix(received.count))), at: .now())
                    }
                }
            }
            return false
        }
    }

    static func receive(on socket: UDPSocket) -> (bytes: [UInt8], from: TransportAddress)? {
        var buffer = [UInt8](repeating: 0, count: 2048)
        var descriptor = pollfd(fd: socket.fileDescriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 3000) == 1,
            let received = try? buffer.withUnsafeMutableBytes({ try socket.receive(into: $0) })
        else { return nil }
        return (Array(buffer.prefix(received.count)), received.source)
    }

    @Test func allocatesRelaysAndDeallocatesAgainstCoturn() throws {
        let coturn = try Coturn()
        let (username, password) = coturn.credentials(name: "call-test")
        let server = TransportAddress(ip: .loopbackV4, port: coturn.port)
        let socket = try UDPSocket(bindingTo: TransportAddress("127.0.0.1:0")!)
        let peer = try UDPSocket(bindingTo: TransportAddress("127.0.0.1:0")!)
        var loop = Loop(
            client: TURNClient(
                configuration: TURNClientConfiguration(
                    server: server, transport: .udp, username: username, password: password,
                    randomSeed: UInt64.random(in: 0...UInt64.max))),
            socket: socket, server: server)

        // Allocate (the 401 challenge, then credentials; coturn signs its answers with the long-term key).
        loop.handle(.start)
        #expect(try loop.run(seconds: 8) { $0.contains { if case .allocated = $0 { true } else { false } } })
        guard case .allocated(let relayed, let mapped, let lifetime) = loop.events.first else {
            Issue.record("no allocation: \(loop.events)")
            return
        }
        #expect(relayed.ip == .loopbackV4 && relayed.port != coturn.port)
        #expect(mapped == socket.localAddress)
        #expect(lifetime > .zero)

        // Through a permission: a Send indication out, a Data indication back.
        loop.handle(.send(Array("hello".utf8), to: peer.localAddress))
        #expect(try loop.run { $0.contains(.permissionCreated(peer.localAddress.ip)) })
        _ = try loop.run(seconds: 0.1) { _ in false }
        let first = try #require(Self.receive(on: peer))
        #expect(first.bytes == Array("hello".utf8) && first.from == relayed)
        _ = try peer.send(Array("world".utf8), to: relayed)
        #expect(try loop.run { $0.contains(.data(Array("world".utf8), from: peer.localAddress)) })

        // Through a channel: ChannelData both ways.
        loop.handle(.bindChannel(peer.localAddress))
        #expect(try loop.run { $0.contains(.channelBound(peer.localAddress, channel: 0x4000)) })
        loop.handle(.send([1, 2, 3], to: peer.localAddress))
        _ = try loop.run(seconds: 0.1) { _ in false }
        let second = try #require(Self.receive(on: peer))
        #expect(second.bytes == [1, 2, 3] && second.from == relayed)
        _ = try peer.send([4, 5, 6, 7, 8], to: relayed)
        #expect(try loop.run { $0.contains(.data([4, 5, 6, 7, 8], from: peer.localAddress)) })

        loop.handle(.deallocate)
        #expect(try loop.run { $0.contains(.closed) })
        #expect(!loop.events.contains { if case .failed = $0 { true } else { false } })
    }
}
