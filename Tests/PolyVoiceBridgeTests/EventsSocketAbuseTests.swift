// Events sockets that never authenticate or never read (issue 19): closed within the documented time,
// while a well-behaved call's own events socket and requests carry on.
import Foundation
import PolyCore
import PolySignaling
import PolyVoiceTesting
import Testing

@testable import PolyVoiceBridge

#if canImport(Glibc)
    import Glibc
#endif

/// A raw WebSocket client that can authenticate and then stop reading (its receive buffer kept tiny, so
/// the bridge's frames back up quickly).
final class NonReadingWebSocket {
    let fd: Int32

    init(port: Int, path: String, authToken: String?) throws {
        fd = try RawHTTP.connect(port: port, receiveBuffer: 2048)
        guard RawHTTP.send(fd, RawHTTP.webSocketUpgrade(path: path, port: port)) else { throw RawHTTP.Failure.closed }
        // Read exactly the handshake response (byte by byte: nothing after it is consumed).
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            guard recv(fd, &byte, 1, 0) == 1 else { throw RawHTTP.Failure.closed }
            head.append(byte)
        }
        guard String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101") else {
            throw RawHTTP.Failure.unexpected("no upgrade")
        }
        if let authToken { try sendText(#"{"type":"auth","token":"\#(authToken)"}"#) }
    }

    deinit { close(fd) }

    /// Sends one masked text frame (payload under 126 bytes).
    func sendText(_ text: String) throws {
        let payload = Array(text.utf8)
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        var frame: [UInt8] = [0x81, 0x80 | UInt8(payload.count)] + mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        guard RawHTTP.send(fd, frame) else { throw RawHTTP.Failure.closed }
    }

    /// Whether the bridge has closed the TCP connection (FIN or reset), seen without reading any frame.
    var isClosedByPeer: Bool {
        let readHangUp: Int16 = 0x2000  // POLLRDHUP
        var poller = pollfd(fd: fd, events: readHangUp, revents: 0)
        guard poll(&poller, 1, 0) >= 0 else { return true }
        return poller.revents & (readHangUp | Int16(POLLHUP) | Int16(POLLERR)) != 0
    }
}

@Suite(.serialized) struct EventsSocketAbuseTests {
    @Test func socketsThatNeverAuthenticateAreClosedAtTheAuthTimeout() async throws {
        let harness = try AbuseHarness { $0.eventsAuthTimeout = .seconds(1) }
        let call = try WellBehavedCall(harness)
        let path = call.call.creds.extra!.eventsUrl!
        let started = ContinuousClock.now
        let sockets = try (0..<20).map { _ in try RawWebSocket(port: harness.port, path: path) }
        let codes = Locked<[Int?]>([])
        let waited = Locked<[Duration]>([])
        let shared = UncheckedBox(sockets)
        onThreads(sockets.count, threads: sockets.count) { index in
            let code = shared.value[index].readCloseCode()
            codes.withLock { $0.append(code) }
            waited.withLock { $0.append(ContinuousClock.now - started) }
        }
        #expect(codes.withLock { $0 } == Array(repeating: 1008, count: 20))
        let slowest = waited.withLock { $0.max() ?? .zero }
        // The documented bound: the auth timeout plus one reaper tick (and scheduling slack).
        #expect(waited.withLock { $0.min() ?? .zero } >= .milliseconds(900))
        #expect(slowest < .seconds(2))
        #expect(harness.rejections("events_auth_timeout") == 20)
        let latency = try call.probe()
        harness.bridge.send(.unmute, toCall: call.call.callId)
        #expect(await eventually { call.updates.events.contains(.unmute) })
        #expect(call.isUndisturbed)
        print(
            "abuse.eventsNoAuth: 20 silent sockets closed 1008 after ≤ \(slowest) (timeout 1 s); call probe \(latency)")
        withExtendedLifetime(sockets) {}
        harness.bridge.stop()
    }

    @Test func authenticatedSocketThatNeverReadsIsClosedByThePingTimeout() async throws {
        let harness = try AbuseHarness {
            $0.eventsPingInterval = .seconds(1)
            $0.eventsPongTimeout = .seconds(1)
        }
        let call = try WellBehavedCall(harness)
        // A second call whose events socket authenticates, then never reads again.
        let deaf = try harness.provision()
        let started = ContinuousClock.now
        let socket = try NonReadingWebSocket(
            port: harness.port, path: deaf.creds.extra!.eventsUrl!, authToken: deaf.creds.token!)
        #expect(await eventually { harness.logged("events.authenticated", call: deaf.callId) })
        let closed = await eventually(.seconds(5)) { harness.logged("events.closed", call: deaf.callId) }
        let waited = ContinuousClock.now - started
        #expect(closed)
        // Pinged after 1 s idle, hung up 1 s later (lws checks once a second): between 2 and 4 s.
        #expect(waited >= .seconds(1) && waited < .seconds(4))
        #expect(await eventually { socket.isClosedByPeer })
        // The well-behaved socket answered its pings and is still open.
        let latency = try call.probe()
        #expect(call.isUndisturbed)
        print("abuse.eventsNeverReads (ping 1 s, pong 1 s): closed after \(waited); call probe \(latency)")
        harness.bridge.stop()
    }

    @Test func socketThatNeverReadsWhileEventsPileUpIsDropped() async throws {
        let harness = try AbuseHarness {
            $0.eventsPingInterval = .zero  // only the queue bound can end it
            $0.eventsMaxQueuedFrames = 64
        }
        let call = try WellBehavedCall(harness)
        let deaf = try harness.provision()
        let socket = try NonReadingWebSocket(
            port: harness.port, path: deaf.creds.extra!.eventsUrl!, authToken: deaf.creds.token!)
        #expect(await eventually { harness.logged("events.authenticated", call: deaf.callId) })
        let started = ContinuousClock.now
        var sent = 0
        while harness.rejections("websocket_slow_reader") == 0, sent < 2_000_000 {
            for _ in 0..<1000 { harness.bridge.send(.bargeIn, toCall: deaf.callId) }
            sent += 1000
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(harness.rejections("websocket_slow_reader") == 1)
        #expect(await eventually { socket.isClosedByPeer })
        let waited = ContinuousClock.now - started
        harness.bridge.send(.unmute, toCall: call.call.callId)
        #expect(await eventually { call.updates.events.contains(.unmute) })
        #expect(call.isUndisturbed)
        print("abuse.eventsQueueOverflow: dropped after \(sent) events in \(waited)")
        harness.bridge.stop()
    }
}
