// A reference bridge in-process on 127.0.0.1 and helpers to wait on a call's streams.
import Foundation
import PolyCore
import PolyVoiceBridge
import Synchronization
import Testing

@testable import PolyVoice

/// A running bridge with the fake media engine (or a real one), stopped by `stop()`.
struct ShellHarness {
    static let token = "test-web-token-4f1c2a9b7e"
    let bridge: Bridge
    let port: Int
    let log: MediaLog
    let sessions: FakeBridgeSessions

    /// `bridgeConnectDelay`: how long after the offer the fake bridge media counts as connected.
    init(
        media: BridgeMediaFactory? = nil, bridgeLog: BridgeLog = BridgeLog(level: .error),
        bridgeConnectDelay: Duration = .zero
    ) throws {
        let log = MediaLog()
        let sessions = FakeBridgeSessions(log: log, connectDelay: bridgeConnectDelay)
        bridge = Bridge(
            configuration: BridgeConfiguration(
                tokens: [Self.token], media: media ?? sessions.factory, log: bridgeLog))
        port = try bridge.start()
        self.log = log
        self.sessions = sessions
    }

    func configuration(token: String = ShellHarness.token, logLevel: LogLevel = .error) -> Configuration {
        Configuration(
            apiKey: "test-api-key-93be1d", environment: .local(port: port), webrtcToken: token, logLevel: logLevel)
    }

    /// A call through the fake client media.
    func call(
        token: String = ShellHarness.token, connects: Bool = true, options: VoiceOptions = ShellHarness.nullAudio,
        logSink: LogSink = .standardError, logLevel: LogLevel = .error
    ) throws -> PolyCall {
        try PolyCall(
            configuration: configuration(token: token, logLevel: logLevel), options: options,
            mediaFactory: FakeCallMedia.factory(log: log, connects: connects), logSink: logSink)
    }

    static var nullAudio: VoiceOptions { VoiceOptions(input: .null, output: .null) }

    func stop() { bridge.stop() }
}

/// Log records captured from a call's logger.
final class LogCapture: Sendable {
    private let records = Mutex<[LogRecord]>([])
    var sink: LogSink { .handler { record in self.records.withLock { $0.append(record) } } }
    var lines: [String] { records.withLock { $0.map { "\($0.level) [\($0.category)] \($0.message)" } } }
}

enum Wait {
    /// Waits until a state satisfying `predicate` is published; returns it (nil on timeout or stream end).
    @discardableResult
    static func state(
        of call: PolyCall, timeout: Duration = .seconds(10), _ predicate: @escaping @Sendable (CallState) -> Bool
    ) async -> CallState? {
        await first(call.states, timeout: timeout, predicate)
    }

    static func first<Value: Sendable>(
        _ stream: AsyncStream<Value>, timeout: Duration, _ predicate: @escaping @Sendable (Value) -> Bool
    ) async -> Value? {
        await withTaskGroup(of: Value?.self) { group in
            group.addTask {
                for await value in stream where predicate(value) { return value }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let result = await group.next() ?? nil
            group.cancelAll()
            return result
        }
    }

    /// Polls `condition` every 20 ms until it holds or `timeout` passes.
    static func until(timeout: Duration = .seconds(10), _ condition: () async -> Bool) async -> Bool {
        let end = ContinuousClock.now + timeout
        while ContinuousClock.now < end {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return await condition()
    }
}
