import Foundation
import Testing

@testable import PolyNet

@Suite struct UDPSocketTests {
    @Test func sendsAndReceivesOverIPv4WithTheSource() throws {
        let a = try UDPSocket(bindingTo: TransportAddress("127.0.0.1:0")!)
        let b = try UDPSocket(bindingTo: TransportAddress("127.0.0.2:0")!)
        #expect(a.localAddress.port != 0)
        var buffer = [UInt8](repeating: 0, count: 1500)
        #expect(try buffer.withUnsafeMutableBytes { try a.receive(into: $0) } == nil)  // non-blocking
        #expect(try b.send([1, 2, 3, 4], to: a.localAddress))
        #expect(waitUntil { a.hasDatagram })
        let received = try #require(try buffer.withUnsafeMutableBytes { try a.receive(into: $0) })
        #expect(received.count == 4 && Array(buffer.prefix(4)) == [1, 2, 3, 4])
        #expect(received.source == b.localAddress)
    }

    @Test func sendsAndReceivesOverIPv6Loopback() throws {
        let a = try UDPSocket(bindingTo: TransportAddress("[::1]:0")!)
        let b = try UDPSocket(bindingTo: TransportAddress("[::1]:0")!)
        try b.send([9, 8, 7], to: a.localAddress)
        #expect(waitUntil { a.hasDatagram })
        var buffer = [UInt8](repeating: 0, count: 64)
        let received = try #require(try buffer.withUnsafeMutableBytes { try a.receive(into: $0) })
        #expect(received.count == 3 && received.source == b.localAddress && received.source.family == .v6)
    }

    @Test func bufferSizesAreApplied() throws {
        let socket = try UDPSocket(
            bindingTo: TransportAddress("127.0.0.1:0")!, receiveBufferSize: 65_536, sendBufferSize: 32_768)
        #expect(socket.receiveBufferSize >= 65_536)
        #expect(socket.sendBufferSize >= 32_768)
    }

    @Test func errorsAreTypedWithErrnoText() throws {
        let first = try UDPSocket(bindingTo: TransportAddress("127.0.0.1:0")!)
        let error = #expect(throws: SocketError.self) {
            try UDPSocket(bindingTo: first.localAddress)
        }
        #expect(error?.code == EADDRINUSE)
        #expect(error?.description.contains("in use") == true)
        #expect(throws: SocketError.self) { try first.send([1], to: TransportAddress("[::1]:9")!) }
    }

    @Test func closeIsIdempotent() throws {
        let socket = try UDPSocket(bindingTo: TransportAddress("127.0.0.1:0")!)
        socket.close()
        socket.close()
        #expect(socket.fileDescriptor == -1)
    }
}

extension UDPSocket {
    /// Whether a datagram is waiting (poll with zero timeout), for tests.
    var hasDatagram: Bool {
        var descriptor = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) == 1
    }
}
