// The bridge's HTTP server under abuse (issue 19): bad tokens, oversized and late bodies, malformed JSON,
// slowloris, more calls than --max-calls. A well-behaved call runs throughout and must not notice.
import Foundation
import PolyCore
import PolySignaling
import PolyVoiceTesting
import Testing

@testable import PolyVoiceBridge

#if canImport(Glibc)
    import Glibc
#endif

@Suite(.serialized) struct HTTPAbuseTests {
    static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }

    @Test func thousandBadTokensAre401ThenRateLimitedPerClientWithBoundedState() async throws {
        let harness = try AbuseHarness {
            $0.rateLimit = .init(burst: 20, ratePerSecond: 5, maxClients: 256)
        }
        let call = try WellBehavedCall(harness)
        let rssBefore = ProcessFigures.residentBytes
        // 1,000 provisions with bad tokens, each from its own client key: every one is 401.
        let statuses = Locked<[Int: Int]>([:])
        let started = ContinuousClock.now
        onThreads(1000, threads: 16) { index in
            let reply = try? RawHTTP.exchange(
                port: harness.port, from: "127.1.\(index / 250).\(index % 250 + 1)",
                RawHTTP.request(
                    "POST", "/api/v1/call", headers: ["Authorization": "Bearer bad-token-\(index)"],
                    body: #"{"mode":"echo"}"#))
            let code = reply.map { $0.status == 401 && $0.errorCode == "unauthorized" ? 401 : $0.status } ?? -1
            statuses.withLock { $0[code, default: 0] += 1 }
        }
        let elapsed = ContinuousClock.now - started
        #expect(statuses.withLock { $0 } == [401: 1000])
        // The limiter forgot all but a bounded number of those 1,000 clients.
        let tracked = harness.bridge.trackedRateLimitClients
        #expect(tracked <= 256)
        // One client hammering with bad tokens: 401 up to its burst, then 429 with Retry-After.
        var sequence: [Int] = []
        var retryAfter: String?
        for index in 0..<40 {
            let reply = try RawHTTP.exchange(
                port: harness.port, from: "127.2.0.1",
                RawHTTP.request(
                    "POST", "/api/v1/call", headers: ["Authorization": "Bearer bad-\(index)"],
                    body: #"{"mode":"echo"}"#))
            sequence.append(reply.status)
            if reply.status == 429 { retryAfter = retryAfter ?? reply.headers["retry-after"] }
        }
        #expect(Array(sequence.prefix(20)) == Array(repeating: 401, count: 20))
        #expect(sequence.suffix(15).allSatisfy { $0 == 429 })
        #expect(Int(retryAfter ?? "") ?? 0 >= 1)
        // The well-behaved call did not notice, and is served promptly.
        let latency = try call.probe()
        #expect(call.isUndisturbed)
        #expect(latency < .seconds(1))
        #expect(harness.rejections("unauthorized") >= 1000)
        #expect(harness.rejections("rate_limited") >= 15)
        let rssAfter = ProcessFigures.residentBytes
        print(
            "abuse.badTokens: 1000 x 401 in \(elapsed), limiter tracks \(tracked) clients, RSS "
                + "\(Self.megabytes(rssBefore)) -> \(Self.megabytes(rssAfter)), call probe \(latency)")
        // Generous: the 1,000 requests must not leave per-request state behind (tens of MB would).
        #expect(rssAfter - rssBefore < 32_000_000)
        harness.bridge.stop()
    }

    @Test func oversizedBodyIs413AtOnceWithoutReadingIt() async throws {
        let harness = try AbuseHarness()
        let call = try WellBehavedCall(harness)
        let rssBefore = ProcessFigures.residentBytes
        // Announces 100 MB, then sends slowly: the 413 comes right after the head.
        let fd = try RawHTTP.connect(port: harness.port)
        defer { close(fd) }
        let head =
            "POST /api/v1/call HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(AbuseHarness.webToken)\r\n"
            + "Content-Type: application/json\r\nContent-Length: 104857600\r\n\r\n"
        let started = ContinuousClock.now
        #expect(RawHTTP.send(fd, Array(head.utf8)))
        // The trickle is stopped and waited for before `fd` closes: its number is reused at once (by the next
        // test's connection, which then received these spaces as its body).
        let stopTrickle = Locked(false)
        let trickleEnded = DispatchSemaphore(value: 0)
        let trickle = Thread {
            defer { trickleEnded.signal() }
            for _ in 0..<20 where !stopTrickle.withLock({ $0 }) {
                guard RawHTTP.send(fd, Array(repeating: 0x20, count: 1024)) else { return }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        trickle.start()
        defer {
            stopTrickle.withLock { $0 = true }
            trickleEnded.wait()
        }
        let reply = try RawHTTP.readReply(fd)
        let timeTo413 = ContinuousClock.now - started
        #expect(reply.status == 413)
        #expect(reply.errorCode == "body_too_large")
        #expect(timeTo413 < .seconds(1))
        #expect(RawHTTP.waitClosed(fd, timeout: .seconds(2)))

        // Sent as fast as the bridge takes it: the connection ends long before 100 MB, and memory does not grow
        // by anything like the body.
        let fast = try RawHTTP.connect(port: harness.port)
        defer { close(fast) }
        #expect(RawHTTP.send(fast, Array(head.utf8)))
        let chunk = [UInt8](repeating: 0x7B, count: 64 * 1024)
        var sent = 0
        while sent < 104_857_600, RawHTTP.send(fast, chunk) { sent += chunk.count }
        let rssAfter = ProcessFigures.residentBytes
        #expect(sent < 50_000_000)
        #expect(rssAfter - rssBefore < 20_000_000)
        // Chunked (no length) and nonsense lengths are refused too.
        let chunked = try RawHTTP.exchange(
            port: harness.port,
            Array(
                ("POST /api/v1/call HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(AbuseHarness.webToken)\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n").utf8))
        #expect(chunked.status == 411)
        #expect(chunked.errorCode == "length_required")
        let latency = try call.probe()
        #expect(call.isUndisturbed)
        #expect(harness.rejections("body_too_large") == 2)
        print(
            "abuse.oversized: 413 after \(timeTo413) (Content-Length 100 MB, 1 KB / 50 ms); fast sender cut off after "
                + "\(Self.megabytes(sent)); RSS \(Self.megabytes(rssBefore)) -> \(Self.megabytes(rssAfter)); "
                + "call probe \(latency)")
        harness.bridge.stop()
    }

    @Test func lateBodyIs408AndClosed() async throws {
        let harness = try AbuseHarness { $0.requestBodyTimeout = .milliseconds(500) }
        let fd = try RawHTTP.connect(port: harness.port)
        defer { close(fd) }
        let head =
            "POST /api/v1/call HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(AbuseHarness.webToken)\r\n"
            + "Content-Length: 100\r\n\r\n{\"mode\""
        let started = ContinuousClock.now
        #expect(RawHTTP.send(fd, Array(head.utf8)))
        let reply = try RawHTTP.readReply(fd)
        let waited = ContinuousClock.now - started
        #expect(reply.status == 408)
        #expect(reply.errorCode == "body_timeout")
        #expect(waited >= .milliseconds(450) && waited < .seconds(2))
        #expect(RawHTTP.waitClosed(fd, timeout: .seconds(2)))
        #expect(harness.rejections("body_timeout") == 1)
        harness.bridge.stop()
    }

    @Test func malformedJSONIs400WithAClearErrorBody() async throws {
        let harness = try AbuseHarness()
        let call = try WellBehavedCall(harness)
        let bearer = ["Authorization": "Bearer \(AbuseHarness.webToken)"]
        let cases: [(String, String, [String: String], String, String)] = [
            ("/api/v1/call", "{not json", bearer, "bad_json", "not valid JSON"),
            ("/api/v1/call", #"{"mode":5}"#, bearer, "bad_json", "mode"),
            ("/api/v1/call", "{}", bearer, "bad_json", "missing field mode"),
            ("/api/v1/call", "[1,2", bearer, "bad_json", "not valid JSON"),
            (call.call.creds.connectUrl, #"{"sdp":1}"#, ["X-Call-Token": call.call.creds.token!], "bad_json", "sdp"),
            (call.call.creds.extra!.pullUrl!, "nope", ["X-Call-Token": call.call.creds.token!], "bad_json", "JSON"),
        ]
        for (path, body, headers, code, mentions) in cases {
            let reply = try RawHTTP.exchange(
                port: harness.port, RawHTTP.request("POST", path, headers: headers, body: body))
            #expect(reply.status == 400, "\(path) \(body)")
            #expect(reply.errorCode == code, "\(path) \(body)")
            #expect(reply.errorMessage?.contains(mentions) == true, "\(reply.body)")
            #expect(reply.headers["content-type"]?.hasPrefix("application/json") == true)
        }
        let nonsenseLength = try RawHTTP.exchange(
            port: harness.port,
            Array("POST /api/v1/call HTTP/1.1\r\nHost: x\r\nContent-Length: 12abc\r\n\r\n".utf8))
        #expect(nonsenseLength.status == 400)
        #expect(try call.probe() < .seconds(1))
        #expect(call.isUndisturbed)
        #expect(harness.rejections("bad_json") == cases.count)
        harness.bridge.stop()
    }

    @Test func slowlorisClientsAreTimedOutWhileOthersAreServed() async throws {
        let clients = 200
        let headTimeout = 3
        let limit = ProcessFigures.raiseDescriptorLimit(to: 4096)
        #expect(limit >= 2 * clients + 100)  // each slow client costs this process two descriptors
        let harness = try AbuseHarness { $0.requestHeadTimeout = .seconds(Int64(headTimeout)) }
        let call = try WellBehavedCall(harness)
        _ = try call.probe()  // warm up (lazily opened descriptors are not leaks)
        let descriptorsBefore = ProcessFigures.openDescriptors
        let head = Array("POST /api/v1/call HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer x\r\n".utf8)
        var fds: [Int32] = []
        for _ in 0..<clients { fds.append(try RawHTTP.connect(port: harness.port)) }
        let opened = ContinuousClock.now
        let closedAt = Locked<[Int32: Duration]>([:])
        let dripping = Locked(true)
        // One byte per second on every connection; each one's close is noted when seen.
        let drip = Thread { [fds] in
            var position = 0
            var buffer = [UInt8](repeating: 0, count: 256)
            while dripping.withLock({ $0 }) {
                for fd in fds where closedAt.withLock({ $0[fd] == nil }) {
                    var byte = head[position % head.count]
                    let sent = Glibc.send(fd, &byte, 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                    let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                    if sent < 0 || count == 0 || (count < 0 && errno != EAGAIN) {
                        closedAt.withLock { $0[fd] = ContinuousClock.now - opened }
                    }
                }
                position += 1
                for _ in 0..<10 where dripping.withLock({ $0 }) {
                    Thread.sleep(forTimeInterval: 0.1)
                    for fd in fds where closedAt.withLock({ $0[fd] == nil }) {
                        let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                        if count == 0 || (count < 0 && errno != EAGAIN) {
                            closedAt.withLock { $0[fd] = ContinuousClock.now - opened }
                        }
                    }
                }
            }
        }
        drip.start()
        // Meanwhile the well-behaved call and new provisions are served.
        var latencies: [Duration] = []
        while ContinuousClock.now - opened < .seconds(Int64(headTimeout) + 2) {
            latencies.append(try call.probe())
            try await Task.sleep(for: .milliseconds(200))
        }
        let allClosed = await eventually(.seconds(3)) { closedAt.withLock { $0.count } == clients }
        dripping.withLock { $0 = false }
        while !drip.isFinished { try await Task.sleep(for: .milliseconds(20)) }
        for fd in fds { close(fd) }
        #expect(allClosed)
        let times = closedAt.withLock { Array($0.values) }.sorted()
        // Closed by the head timeout: not before it, and within a second of it (lws checks once a second).
        #expect(times.first.map { $0 >= .seconds(Int64(headTimeout) - 1) } == true)
        #expect(times.last.map { $0 <= .seconds(Int64(headTimeout) + 2) } == true)
        #expect(call.isUndisturbed)
        let sorted = latencies.sorted()
        let median = sorted[sorted.count / 2]
        #expect(sorted.last! < .seconds(1))
        #expect(await eventually(.seconds(3)) { ProcessFigures.openDescriptors <= descriptorsBefore + 2 })
        print(
            "abuse.slowloris: \(clients) clients at 1 byte/s, head timeout \(headTimeout) s: closed after "
                + "\(times.first ?? .zero)…\(times.last ?? .zero); call probe (pull, provision + hang-up) median "
                + "\(median), max \(sorted.last!) over \(sorted.count); fds \(descriptorsBefore) -> "
                + "\(ProcessFigures.openDescriptors)")
        harness.bridge.stop()
    }

    @Test func moreCallsThanMaxCallsAre503AndNothingLeaks() async throws {
        let harness = try AbuseHarness { $0.maxCalls = 5 }
        let bearer = ["Authorization": "Bearer \(AbuseHarness.webToken)"]
        let descriptorsBefore = ProcessFigures.openDescriptors
        var calls: [ProvisionResponse] = []
        var refused: [RawHTTP.Reply] = []
        for _ in 0..<25 {
            let reply = try RawHTTP.exchange(
                port: harness.port, RawHTTP.request("POST", "/api/v1/call", headers: bearer, body: #"{"mode":"echo"}"#))
            if reply.status == 200 {
                calls.append(try MessageCoding.decode(ProvisionResponse.self, from: Array(reply.body.utf8)))
            } else {
                refused.append(reply)
            }
        }
        #expect(calls.count == 5)
        #expect(refused.count == 20)
        #expect(refused.allSatisfy { $0.status == 503 && $0.errorCode == "at_capacity" })
        #expect(refused.allSatisfy { Int($0.headers["retry-after"] ?? "") ?? 0 >= 1 })
        #expect(harness.bridge.activeCalls == 5)
        for call in calls {
            let reply = try RawHTTP.exchange(
                port: harness.port,
                RawHTTP.request("DELETE", "/api/v1/call/\(call.callId)", headers: ["X-Call-Token": call.creds.token!]))
            #expect(reply.status == 200)
        }
        #expect(harness.bridge.activeCalls == 0)
        #expect(harness.rejections("at_capacity") == 20)
        // Back at baseline, capacity is whole again.
        #expect(await eventually(.seconds(3)) { ProcessFigures.openDescriptors <= descriptorsBefore })
        let again = try RawHTTP.exchange(
            port: harness.port, RawHTTP.request("POST", "/api/v1/call", headers: bearer, body: #"{"mode":"echo"}"#))
        #expect(again.status == 200)
        harness.bridge.stop()
    }
}

extension Bridge {
    /// Clients the rate limiter currently tracks (tests).
    var trackedRateLimitClients: Int { runningCore?.state.withLock { $0.limiter.trackedClients } ?? 0 }
}
