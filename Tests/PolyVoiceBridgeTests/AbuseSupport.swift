// Helpers for the HTTP / events-socket abuse tests: a bridge whose rate-limit key can be chosen per
// request, a blocking raw HTTP client with deadlines, and /proc figures of this (the bridge's) process.
import Foundation
import PolyCore
import PolySignaling
import PolyVoiceTesting

@testable import PolyVoiceBridge

#if canImport(Glibc)
    import Glibc
#endif

/// A bridge with fake media (as `TestHarness`), configured by the test. Its rate limit is per client address:
/// tests play many clients by connecting from different 127.x.y.z source addresses.
final class AbuseHarness: Sendable {
    static let webToken = TestHarness.webToken
    let bridge: Bridge
    let port: Int
    let medias = Locked<[String: FakeMedia]>([:])
    let logLines = Locked<[String]>([])

    init(_ configure: (inout BridgeConfiguration) -> Void = { _ in }) throws {
        let medias = self.medias
        let logLines = self.logLines
        var configuration = BridgeConfiguration(
            tokens: [Self.webToken], maxCalls: 50, maxBodyBytes: 4096,
            rateLimit: .init(burst: 1000, ratePerSecond: 1000), reapInterval: .milliseconds(20),
            media: BridgeMediaFactory { context throws(BridgeMediaError) in
                let media = FakeMedia(context: context)
                medias.withLock { $0[context.callID] = media }
                return media
            },
            log: BridgeLog(format: .json, level: .info, write: { line in logLines.withLock { $0.append(line) } }))
        configure(&configuration)
        bridge = Bridge(configuration: configuration)
        port = try bridge.start()
    }

    /// Provisions an echo call with the web calling token (throws unless 200).
    func provision() throws -> ProvisionResponse {
        let reply = try RawHTTP.exchange(
            port: port,
            RawHTTP.request(
                "POST", "/api/v1/call", headers: ["Authorization": "Bearer \(Self.webToken)"],
                body: #"{"mode":"echo"}"#))
        guard reply.status == 200 else { throw RawHTTP.Failure.unexpected("provision \(reply.status)") }
        return try MessageCoding.decode(ProvisionResponse.self, from: Array(reply.body.utf8))
    }

    /// Whether the bridge has logged `event` (e.g. `events.authenticated`) for `callID`.
    func logged(_ event: String, call callID: String) -> Bool {
        logLines.withLock { $0.contains { $0.contains(event) && $0.contains(callID) } }
    }

    /// `/metrics` value of `polyvoice_bridge_rejections_total{reason="…"}` (0 if absent).
    func rejections(_ reason: String) -> Int {
        let prefix = "polyvoice_bridge_rejections_total{reason=\"\(reason)\"} "
        return bridge.metricsText.split(separator: "\n").first { $0.hasPrefix(prefix) }
            .flatMap { Int($0.dropFirst(prefix.count)) } ?? 0
    }
}

/// A well-behaved caller: provisions, connects (fake media that the test keeps "receiving" packets),
/// opens its events socket, and measures the latency of further normal requests. Blocking; one thread.
final class WellBehavedCall: @unchecked Sendable {
    // @unchecked: used from one test thread at a time.
    let harness: AbuseHarness
    let call: ProvisionResponse
    let socket: EventsSocket
    let updates: EventsSocketRecorder

    init(_ harness: AbuseHarness) throws {
        self.harness = harness
        call = try harness.provision()
        let connect = try RawHTTP.exchange(
            port: harness.port,
            RawHTTP.request(
                "POST", call.creds.connectUrl, headers: ["X-Call-Token": call.creds.token!],
                body: #"{"sdp":"v=0\r\n","mid":"0"}"#))
        guard connect.status == 200 else { throw RawHTTP.Failure.unexpected("connect \(connect.status)") }
        harness.media(call.callId)?.packet()
        let url = URL(string: "ws://127.0.0.1:\(harness.port)\(call.creds.extra!.eventsUrl!)")!
        socket = try EventsSocket(configuration: .init(url: url, token: call.creds.token!))
        updates = EventsSocketRecorder(socket)
    }

    /// One normal exchange on the live call (a pull: token check, media state, SDP out) and one provision
    /// plus hang-up of a second call; returns the slower one's wall time.
    func probe() throws -> Duration {
        harness.media(call.callId)?.packet()
        let start = ContinuousClock.now
        let pull = try RawHTTP.exchange(
            port: harness.port,
            RawHTTP.request(
                "POST", call.creds.extra!.pullUrl!, headers: ["X-Call-Token": call.creds.token!], body: "{}",
            ))
        guard pull.status == 200 else { throw RawHTTP.Failure.unexpected("pull \(pull.status)") }
        let pullTime = ContinuousClock.now - start
        let second = ContinuousClock.now
        let other = try harness.provision()
        let hangUp = try RawHTTP.exchange(
            port: harness.port,
            RawHTTP.request(
                "DELETE", "/api/v1/call/\(other.callId)", headers: ["X-Call-Token": other.creds.token!],
            ))
        guard hangUp.status == 200 else { throw RawHTTP.Failure.unexpected("hang up \(hangUp.status)") }
        _ = try? RawHTTP.exchange(
            port: harness.port,
            RawHTTP.request(
                "POST", call.creds.extra!.renegotiateUrl!, headers: ["X-Call-Token": call.creds.token!],
                body: #"{"sdp":"v=0\r\n"}"#))
        return max(pullTime, ContinuousClock.now - second)
    }

    /// Whether the call is still up: provisioned, and its events socket open.
    var isUndisturbed: Bool { harness.bridge.activeCalls >= 1 && updates.close == nil && updates.all.contains(.open) }
}

extension AbuseHarness {
    func media(_ id: String) -> FakeMedia? { medias.withLock { $0[id] } }
}

/// A blocking HTTP/1.1 client over raw sockets (one request per connection, `Connection: close`), so tests
/// control every byte and every deadline.
enum RawHTTP {
    enum Failure: Error { case connect, timeout, closed, unexpected(String) }

    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: String
        var errorCode: String? {
            (try? MessageCoding.decode(ErrorBody.self, from: Array(body.utf8)))?.error
        }
        var errorMessage: String? {
            (try? MessageCoding.decode(ErrorBody.self, from: Array(body.utf8)))?.message
        }
    }

    static func request(
        _ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil
    ) -> [UInt8] {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        text += "\r\n" + (body ?? "")
        return Array(text.utf8)
    }

    /// Connects to 127.0.0.1:`port` (blocking, with receive/send timeouts), from the loopback address
    /// `source` if given (another client as far as the bridge's per-address limits go).
    /// `receiveBuffer` sets SO_RCVBUF before connecting (a small one makes a client that stops reading
    /// back the server's writes up quickly).
    static func connect(
        port: Int, from source: String? = nil, timeout: Duration = .seconds(5), receiveBuffer: Int32? = nil
    ) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure.connect }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                close(fd)
                throw Failure.connect
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure.connect
        }
        let seconds = Int(timeout.components.seconds)
        var value = timeval(tv_sec: seconds, tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// A WebSocket upgrade request for `path` (a fixed key: the tests do not check the accept header).
    static func webSocketUpgrade(path: String, port: Int) -> [UInt8] {
        Array(
            ("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)
    }

    static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Reads one response (head and Content-Length body) from `fd`.
    static func readReply(_ fd: Int32) throws -> Reply {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            if let reply = parse(received) { return reply }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 { throw Failure.closed }
            if count < 0 { throw errno == EAGAIN || errno == EWOULDBLOCK ? Failure.timeout : Failure.closed }
            received += buffer[0..<count]
        }
    }

    /// Sends `request` on a new connection and reads the reply.
    static func exchange(port: Int, from source: String? = nil, _ request: [UInt8]) throws -> Reply {
        let fd = try connect(port: port, from: source)
        defer { close(fd) }
        guard send(fd, request) else { throw Failure.closed }
        return try readReply(fd)
    }

    /// Whether the peer has closed `fd` (EOF or reset), waiting up to `timeout`; any data is discarded.
    static func waitClosed(_ fd: Int32, timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = max(1, Int32((deadline - ContinuousClock.now).inSeconds * 1000))
            guard poll(&poller, 1, min(left, 100)) > 0 else { continue }
            let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { return true }
        }
        return false
    }

    private static func parse(_ bytes: [UInt8]) -> Reply? {
        guard bytes.count >= 4,
            let end = (0...(bytes.count - 4)).first(where: { bytes[$0..<$0 + 4].elementsEqual([13, 10, 13, 10]) })
        else { return nil }
        let head = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = head[0].split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        guard bytes.count - (end + 4) >= length else { return nil }
        return Reply(
            status: status, headers: headers,
            body: String(decoding: bytes[(end + 4)..<(end + 4 + length)], as: UTF8.self))
    }
}

/// Figures of this process (which runs the bridge) from /proc.
enum ProcessFigures {
    /// Resident set size in bytes.
    static var residentBytes: Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return (Int(line.split(separator: " ")[1]) ?? 0) * 1024
    }

    /// Open file descriptors.
    static var openDescriptors: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    /// Raises the soft descriptor limit to at least `wanted` (up to the hard limit); returns the new soft limit.
    @discardableResult
    static func raiseDescriptorLimit(to wanted: Int) -> Int {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < rlim_t(wanted) {
            limit.rlim_cur = min(limit.rlim_max, rlim_t(wanted))
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return Int(limit.rlim_cur)
    }
}

/// Runs `body(index)` for 0..<count on `threads` plain threads (not the cooperative pool: the bodies block).
func onThreads(_ count: Int, threads: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let next = Locked(0)
    let group = DispatchGroup()
    for _ in 0..<threads {
        group.enter()
        Thread {
            while true {
                let index = next.withLock { value -> Int in
                    defer { value += 1 }
                    return value
                }
                guard index < count else { break }
                body(index)
            }
            group.leave()
        }.start()
    }
    group.wait()
}

/// Hands non-Sendable test objects to threads that use each one from a single thread.
final class UncheckedBox<Value>: @unchecked Sendable {
    // @unchecked: the tests give each element to one thread only.
    let value: Value
    init(_ value: Value) { self.value = value }
}
