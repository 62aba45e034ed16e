import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import PolyVoiceTesting
import Testing

@testable import PolySignaling

@Suite struct EventsSocketTests {
    func eventsURL(_ bridge: TestBridge, scheme: String = "ws") -> URL {
        URL(string: "\(scheme)://127.0.0.1:\(bridge.server.port)/api/v1/call/call-1/events")!
    }

    @Test func authThenEventsThenNormalClose() async throws {
        let bridge = try TestBridge()
        let socket = try EventsSocket(configuration: .init(url: eventsURL(bridge), token: TestBridge.callToken))
        let collector = EventsSocketRecorder(socket)
        #expect(await eventually { bridge.state.authenticated.withLock { $0.count } == 1 })
        let server = try #require(bridge.lastSocket)
        #expect(server.remoteAddress == "127.0.0.1")
        #expect(server.path == "/api/v1/call/call-1/events")
        server.send(text: #"{"event":"repull"}"#)
        server.send(text: #"{"event":"something-new","x":1}"#)
        server.send(text: "not json at all")
        server.send(text: #"{"event":"barge-in"}"#)
        server.send(text: #"{"event":"unmute"}"#)
        #expect(await eventually { collector.events.count == 3 })
        #expect(collector.events == [.repull, .bargeIn("barge-in"), .unmute])
        #expect(collector.all.first == .open)
        socket.close()
        #expect(await eventually { collector.close != nil })
        #expect(collector.close?.code == 1000)
        #expect(await eventually { bridge.state.closes.withLock { $0.first?.code } == 1000 })
    }

    @Test func anythingButAuthFirstIsClosedWith1008() async throws {
        let bridge = try TestBridge()
        let socket = try EventsSocket(
            configuration: .init(url: eventsURL(bridge), token: TestBridge.callToken), firstFrame: #"{"type":"hello"}"#)
        let collector = EventsSocketRecorder(socket)
        #expect(await eventually { collector.close != nil })
        #expect(collector.close?.code == 1008)
        #expect(collector.close?.reason == "auth first")
        #expect(bridge.state.authenticated.withLock { $0.isEmpty })
    }

    @Test func wrongTokenIsClosedWith1008() async throws {
        let bridge = try TestBridge()
        let socket = try EventsSocket(configuration: .init(url: eventsURL(bridge), token: "wrong-token-123456"))
        let collector = EventsSocketRecorder(socket)
        #expect(await eventually { collector.close != nil })
        #expect(collector.close?.isPolicyViolation == true)
    }

    @Test func serverDropIsReportedAsAbnormal() async throws {
        let bridge = try TestBridge()
        let socket = try EventsSocket(configuration: .init(url: eventsURL(bridge), token: TestBridge.callToken))
        let collector = EventsSocketRecorder(socket)
        #expect(await eventually { bridge.state.authenticated.withLock { $0.count } == 1 })
        try #require(bridge.lastSocket).drop()
        #expect(await eventually { collector.close != nil })
        #expect(collector.close?.code == 1006)
    }

    @Test func serverShutdownIsReportedAsAbnormal() async throws {
        let bridge = try TestBridge()
        let socket = try EventsSocket(configuration: .init(url: eventsURL(bridge), token: TestBridge.callToken))
        let collector = EventsSocketRecorder(socket)
        #expect(await eventually { bridge.state.authenticated.withLock { $0.count } == 1 })
        bridge.server.stop()
        #expect(await eventually { collector.close != nil })
        #expect(collector.close?.isAbnormal == true)
    }

    @Test func unreachableBridgeIsReportedAsAbnormal() async throws {
        let port: Int
        do {
            let bridge = try TestBridge()
            port = bridge.server.port
            bridge.server.stop()
        }
        let url = URL(string: "ws://127.0.0.1:\(port)/api/v1/call/call-1/events")!
        let socket = try EventsSocket(configuration: .init(url: url, token: TestBridge.callToken))
        let collector = EventsSocketRecorder(socket)
        #expect(await eventually { collector.close != nil })
        #expect(collector.close?.code == 1006)
        #expect(!collector.all.contains(.open))
    }

    @Test func upgradeToAnUnknownPathIsRefused() async throws {
        let bridge = try TestBridge()
        let url = URL(string: "ws://127.0.0.1:\(bridge.server.port)/elsewhere")!
        let socket = try EventsSocket(configuration: .init(url: url, token: TestBridge.callToken))
        let collector = EventsSocketRecorder(socket)
        #expect(await eventually { collector.close != nil })
        #expect(collector.close?.code == 1006)
        #expect(bridge.state.sockets.withLock { $0.isEmpty })
    }

    @Test func idleSocketIsKeptAliveWithPings() async throws {
        let bridge = try TestBridge()
        let socket = try EventsSocket(
            configuration: .init(
                url: eventsURL(bridge), token: TestBridge.callToken, pingInterval: .seconds(1), pongTimeout: .seconds(1)
            ))
        let collector = EventsSocketRecorder(socket)
        // lws's validity timer has one-second granularity: allow a few seconds for the first ping.
        #expect(await eventually(.seconds(5)) { socket.pongsReceived >= 1 })
        #expect(collector.close == nil)
        socket.close()
        #expect(await eventually { collector.close?.code == 1000 })
    }

    @Test func silentServerTimesOutAsAbnormal() async throws {
        // A listening socket that is never accepted: TCP connects, the handshake never answers.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { Glibc.close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        try #require(bound && listen(fd, 4) == 0)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let url = URL(string: "ws://127.0.0.1:\(port)/events")!
        let started = ContinuousClock.now
        let socket = try EventsSocket(
            configuration: .init(url: url, token: TestBridge.callToken, connectTimeout: .seconds(1)))
        let collector = EventsSocketRecorder(socket)
        #expect(await eventually(.seconds(6)) { collector.close != nil })
        #expect(collector.close == WebSocketClose(code: 1006, reason: "connect timed out"))
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func httpURLsBecomeWebSocketURLs() throws {
        let target = try EventsTarget(url: URL(string: "https://bridge.example/api/v1/call/c/events?x=1")!)
        #expect(target.secure && target.port == 443 && target.path == "/api/v1/call/c/events?x=1")
        let local = try EventsTarget(url: URL(string: "http://127.0.0.1:8080/e")!)
        #expect(!local.secure && local.port == 8080 && local.host == "127.0.0.1")
    }
}
