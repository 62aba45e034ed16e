import Foundation
import PolyCore
import Testing

@testable import PolyNet

/// A value shared between the loop thread and the test thread.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func with<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
    var current: Value { with { $0 } }
}

/// Polls `condition` for up to `seconds` of real time.
func waitUntil(seconds: Double = 5, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if condition() { return true }
        usleep(1_000)
    }
    return condition()
}

@Suite struct EventLoopTests {
    @Test func receivesDatagramsWithTheirSource() throws {
        let loop = try EventLoop()
        defer { loop.shutdown() }
        let receiver = try UDPSocket(bindingTo: TransportAddress("127.0.0.1:0")!)
        let sender = try UDPSocket(bindingTo: TransportAddress("127.0.0.2:0")!)
        let received = Locked<[([UInt8], TransportAddress, Bool)]>([])
        loop.register(receiver) { datagram, source in
            received.with { $0.append((Array(datagram), source, loop.isOnLoopThread)) }
        }
        for index in 0..<5 { try sender.send([UInt8(index), 0xAA, 0xBB], to: receiver.localAddress) }
        #expect(waitUntil { received.current.count == 5 })
        let all = received.current
        #expect(all.map(\.0) == (0..<5).map { [UInt8($0), 0xAA, 0xBB] })
        #expect(all.allSatisfy { $0.1 == sender.localAddress && $0.2 })
        #expect(sender.localAddress.ip == IPAddress("127.0.0.2"))
    }

    @Test func timersFireInDeadlineOrderAndCancelledOnesDoNot() throws {
        let loop = try EventLoop()
        defer { loop.shutdown() }
        let fired = Locked<[Int]>([])
        let start = Instant.now()
        let firedAt = Locked<[Int: Instant]>([:])
        for (label, delay) in [(3, 60), (1, 20), (2, 40), (4, 40)] {
            loop.schedule(at: start + .milliseconds(delay)) {
                fired.with { $0.append(label) }
                firedAt.with { $0[label] = Instant.now() }
            }
        }
        let cancelled = loop.schedule(at: start + .milliseconds(30)) { fired.with { $0.append(99) } }
        loop.cancel(cancelled)
        #expect(waitUntil { fired.current.count == 4 })
        usleep(50_000)
        #expect(fired.current == [1, 2, 4, 3])
        let times = firedAt.current
        #expect(times[1]! >= start + .milliseconds(20))
        #expect(times[3]! >= start + .milliseconds(60))
    }

    @Test func executeRunsOnTheLoopThreadInOrder() throws {
        let loop = try EventLoop()
        defer { loop.shutdown() }
        let seen = Locked<[Int]>([])
        let onLoop = Locked<Bool>(true)
        #expect(!loop.isOnLoopThread)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            for index in 0..<100 {
                loop.execute {
                    seen.with { $0.append(index) }
                    if !loop.isOnLoopThread { onLoop.with { $0 = false } }
                }
            }
        }
        group.wait()
        #expect(waitUntil { seen.current.count == 100 })
        #expect(seen.current == Array(0..<100))
        #expect(onLoop.current)
    }

    @Test func manySocketsShareOneLoop() throws {
        let loop = try EventLoop()
        defer { loop.shutdown() }
        let sockets = try (0..<32).map { _ in try UDPSocket(bindingTo: TransportAddress("127.0.0.1:0")!) }
        let counts = Locked<[UInt16: Int]>([:])
        for socket in sockets {
            let port = socket.localAddress.port
            loop.register(socket) { datagram, _ in
                #expect(datagram.count == 2)
                counts.with { $0[port, default: 0] += 1 }
            }
        }
        let sender = try UDPSocket(bindingTo: TransportAddress("127.0.0.2:0")!)
        for _ in 0..<10 {
            for socket in sockets { try sender.send([1, 2], to: socket.localAddress) }
        }
        #expect(waitUntil { counts.current.values.reduce(0, +) == 320 })
        #expect(counts.current.count == 32 && counts.current.values.allSatisfy { $0 == 10 })
    }

    @Test func unregisteredSocketsAreNoLongerServed() throws {
        let loop = try EventLoop()
        defer { loop.shutdown() }
        let socket = try UDPSocket(bindingTo: TransportAddress("127.0.0.1:0")!)
        let count = Locked(0)
        let registration = loop.register(socket) { _, _ in count.with { $0 += 1 } }
        let sender = try UDPSocket(bindingTo: TransportAddress("127.0.0.1:0")!)
        try sender.send([1], to: socket.localAddress)
        #expect(waitUntil { count.current == 1 })
        loop.unregister(registration)
        let unregistered = Locked(false)
        loop.execute { unregistered.with { $0 = true } }
        #expect(waitUntil { unregistered.current })
        try sender.send([2], to: socket.localAddress)
        usleep(50_000)
        #expect(count.current == 1)
        var buffer = [UInt8](repeating: 0, count: 16)
        let waiting = try buffer.withUnsafeMutableBytes { try socket.receive(into: $0) }
        #expect(waiting?.count == 1 && buffer[0] == 2)
    }

    @Test func shutdownFinishesQueuedWorkAndReturns() throws {
        let loop = try EventLoop()
        let ran = Locked(false)
        loop.execute { ran.with { $0 = true } }
        loop.shutdown()
        #expect(ran.current)
        loop.shutdown()  // idempotent
    }
}
