// One end-to-end check against a real coturn on 127.0.0.1 (TURN REST-API credentials): the sans-IO client,
// driven over a real UDP socket by a small loop, allocates, relays both ways through a permission and a
// channel, and deallocates. scripts/setup.sh installs coturn; without it the test fails saying so.
import Foundation
import PolyCore
import PolyVoiceTesting
import Testing

@testable import PolyNet

@Suite(.serialized)
struct TURNCoturnTests {
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
        let coturn = try CoturnServer()
        let credentials = coturn.credentials(name: "call-test")
        let (username, password) = (credentials.username, credentials.password)
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
