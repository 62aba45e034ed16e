// The TCP stream the shell opens to a TURN server: its write queue under short and refused writes (sans-IO),
// and a real connection on an event loop (connect completion, queued bytes in order, reads, close, refusal).
import Foundation
import Synchronization
import Testing

@testable import PolyNet

@Suite struct StreamWriteQueueTests {
    @Test func shortAndRefusedWritesKeepEveryByteInOrder() {
        var queue = StreamWriteQueue()
        queue.append([1, 2, 3, 4, 5])
        queue.append([])
        queue.append([6, 7])
        queue.append([8, 9, 10])
        #expect(queue.count == 10)
        var written: [UInt8] = []
        // The kernel takes 3 bytes, then nothing (EAGAIN), then 4 (across no chunk boundary), then all.
        for allowance in [3, 0, 1, 4, 100] {
            queue.flush { buffer in
                let taken = min(allowance, buffer.count)
                written += buffer.prefix(taken)
                return taken
            }
            if allowance == 0 { #expect(written == [1, 2, 3]) }
        }
        #expect(written == Array(1...10))
        #expect(queue.isEmpty)
    }

    @Test func aFailedWriteLeavesTheQueueAsItWas() {
        struct Broken: Error {}
        var queue = StreamWriteQueue()
        queue.append([1, 2, 3])
        queue.flush { _ in 1 }
        #expect(throws: Broken.self) { try queue.flush { _ throws(Broken) -> Int in throw Broken() } }
        #expect(queue.count == 2)
        var rest: [UInt8] = []
        queue.flush { buffer in
            rest += buffer
            return buffer.count
        }
        #expect(rest == [2, 3])
    }
}

@Suite(.serialized) struct TCPConnectionTests {
    final class Recorder: Sendable {
        let events = Mutex<[String]>([])
        let bytes = Mutex<[UInt8]>([])
        func record(_ event: TCPConnection.Event) {
            switch event {
            case .connected: events.withLock { $0.append("connected") }
            case .received(let data): bytes.withLock { $0 += data }
            case .closed(let reason): events.withLock { $0.append("closed: \(reason)") }
            }
        }
    }

    final class Holder: @unchecked Sendable { var connection: TCPConnection? }

    /// A blocking listener on 127.0.0.1 (the test's side of the connection).
    static func listener() throws -> (descriptor: Int32, address: TransportAddress) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 4) == 0
                    && getsockname(descriptor, $0, &length) == 0
            }
        }
        try #require(bound)
        return (descriptor, TransportAddress(ip: .loopbackV4, port: UInt16(bigEndian: address.sin_port)))
    }

    static func waitUntil(_ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(5)
        while Date() < end {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return condition()
    }

    @Test func bytesQueuedBeforeTheConnectCompletesArriveInOrderBothWays() throws {
        let loop = try EventLoop(name: "tcp-test")
        defer { loop.shutdown() }
        let (listening, address) = try Self.listener()
        defer { close(listening) }
        let recorder = Recorder()
        let holder = Holder()
        // 2 MiB: more than the kernel buffers take at once, so writes come back short or EAGAIN.
        let payload = (0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        loop.execute {
            holder.connection = try? TCPConnection(to: address, loop: loop) { recorder.record($0) }
            holder.connection?.write(Array(payload.prefix(1000)))
            holder.connection?.write(Array(payload.dropFirst(1000)))
        }
        let accepted = accept(listening, nil, nil)
        try #require(accepted >= 0)
        defer { close(accepted) }
        #expect(Self.waitUntil { recorder.events.withLock { $0 == ["connected"] } })
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while received.count < payload.count {
            let count = recv(accepted, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            received += buffer.prefix(count)
        }
        #expect(received == payload)
        let reply: [UInt8] = [9, 8, 7]
        _ = send(accepted, reply, reply.count, 0)
        #expect(Self.waitUntil { recorder.bytes.withLock { $0 == [9, 8, 7] } })
        shutdown(accepted, Int32(SHUT_RDWR))
        #expect(Self.waitUntil { recorder.events.withLock { $0.count == 2 } })
        #expect(recorder.events.withLock { $0 } == ["connected", "closed: the server closed the connection"])
        loop.execute { holder.connection = nil }
    }

    @Test func aRefusedConnectIsReportedWithTheAddress() throws {
        let (listening, address) = try Self.listener()
        close(listening)  // nothing listens on the port any more
        let loop = try EventLoop(name: "tcp-test")
        defer { loop.shutdown() }
        let recorder = Recorder()
        let holder = Holder()
        loop.execute {
            holder.connection = try? TCPConnection(to: address, loop: loop) { recorder.record($0) }
            holder.connection?.write([1, 2, 3])
        }
        #expect(Self.waitUntil { !recorder.events.withLock { $0 }.isEmpty })
        #expect(recorder.events.withLock { $0 } == ["closed: connect to \(address): Connection refused"])
        loop.execute { holder.connection = nil }
    }
}
