import Foundation
import PolyCore
import PolySignaling
import Synchronization
import URLSessionSupport

@testable import PolyVoiceBridge

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Media stand-in: SDP must start with "v=0"; the test says when it is connected and packets flow.
final class FakeMedia: BridgeMediaSession {
    struct State {
        var stats = BridgeMediaStats()
        var offers: [String] = []
        var pullAnswers: [String] = []
        var closed = false
    }
    let state = Mutex(State())
    let context: BridgeMediaContext
    /// Called when the bridge closes the session (after `closed` is set).
    let onClose: (@Sendable () -> Void)?

    init(context: BridgeMediaContext, onClose: (@Sendable () -> Void)? = nil) {
        self.context = context
        self.onClose = onClose
    }

    func applyOffer(_ sdp: String, mid: String?) async throws(BridgeMediaError) -> String {
        guard sdp.hasPrefix("v=0") else { throw .invalidSDP("line 1: expected v=0") }
        let count = state.withLock { state in
            state.offers.append(sdp)
            return state.offers.count
        }
        return "v=0\r\ns=answer-\(count)\r\n"
    }

    func createPullOffer() async throws(BridgeMediaError) -> String { "v=0\r\ns=pull\r\n" }

    func applyPullAnswer(_ sdp: String) async throws(BridgeMediaError) {
        guard sdp.hasPrefix("v=0") else { throw .invalidSDP("line 1: expected v=0") }
        state.withLock { $0.pullAnswers.append(sdp) }
    }

    var stats: BridgeMediaStats { state.withLock { $0.stats } }

    func close() {
        state.withLock { $0.closed = true }
        onClose?()
    }

    /// Marks the session connected with a packet just received.
    func packet() {
        state.withLock {
            $0.stats.isConnected = true
            $0.stats.lastPacketAt = .now()
            $0.stats.packetsReceived += 1
        }
    }
}

/// A shareable lock box (Mutex itself cannot be captured by escaping closures).
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}

/// A running bridge with fake media, and raw HTTP helpers.
final class TestHarness: Sendable {
    static let webToken = "web-token-0123456789abcdef"
    let bridge: Bridge
    let port: Int
    let medias = Locked<[String: FakeMedia]>([:])
    let logLines = Locked<[String]>([])

    init(
        maxCalls: Int = 10, rateLimit: RateLimiter.Configuration = .init(burst: 1000, ratePerSecond: 1000),
        timeouts: CallReaper.Timeouts = .init(), maxBodyBytes: Int = 4096,
        eventsAuthTimeout: Duration = .seconds(5)
    ) throws {
        let medias = self.medias
        let logLines = self.logLines
        bridge = Bridge(
            configuration: BridgeConfiguration(
                tokens: ["other-token-zzzzzzzzzz", Self.webToken], maxCalls: maxCalls, maxBodyBytes: maxBodyBytes,
                rateLimit: rateLimit, timeouts: timeouts, reapInterval: .milliseconds(20),
                eventsAuthTimeout: eventsAuthTimeout,
                media: BridgeMediaFactory { context throws(BridgeMediaError) in
                    let media = FakeMedia(context: context)
                    medias.withLock { $0[context.callID] = media }
                    return media
                },
                log: BridgeLog(format: .json, level: .debug, write: { line in logLines.withLock { $0.append(line) } })))
        port = try bridge.start()
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    func client(token: String = webToken) -> BridgeClient {
        BridgeClient(
            configuration: .init(baseURL: baseURL, webCallingToken: token, retry: .none),
            transport: URLSessionTransport())
    }

    func media(_ id: String) -> FakeMedia? { medias.withLock { $0[id] } }

    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: Data
        var errorCode: String? {
            (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["error"] as? String
        }
    }

    func request(
        _ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil
    ) async throws -> Reply {
        var request = URLRequest(url: URL(string: path, relativeTo: baseURL)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let body { request.httpBody = Data(body.utf8) }
        let (data, response) = try await URLSession(configuration: .ephemeral).data(for: request)
        let http = try require(response as? HTTPURLResponse)
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            headers[String(describing: key).lowercased()] = String(describing: value)
        }
        return Reply(status: http.statusCode, headers: headers, body: data)
    }

    func provisionRaw(_ mode: String = "voice-agent") async throws -> ProvisionResponse {
        let reply = try await request(
            "POST", "/api/v1/call", headers: ["Authorization": "Bearer \(Self.webToken)"],
            body: "{\"mode\":\"\(mode)\"}")
        return try MessageCoding.decode(ProvisionResponse.self, from: reply.body)
    }
}

private func require<T>(_ value: T?) throws -> T {
    guard let value else { throw CancellationError() }
    return value
}
