// A broadcaster whose subscribers each get an AsyncStream that starts with the latest value.
import Synchronization

/// Broadcasts values to any number of `AsyncStream` subscribers; a late subscriber first receives
/// the latest value. After `finish()` (or a value for which `isTerminal` is true) every stream ends,
/// and later subscribers get the last value and then the end.
///
/// Used for a call's `states`, `audioStates` and `qualityWarnings`. Thread-safe.
public final class ReplayingStream<Value: Sendable>: Sendable {
    private struct State {
        var latest: Value?
        var subscribers: [Int: AsyncStream<Value>.Continuation] = [:]
        var nextID = 0
        var isFinished = false
    }

    private let state: Mutex<State>
    private let isTerminal: @Sendable (Value) -> Bool
    private let bufferingPolicy: AsyncStream<Value>.Continuation.BufferingPolicy

    /// - Parameters:
    ///   - initial: replayed to subscribers until the first `yield`; nil for none.
    ///   - bufferingPolicy: per subscriber, for slow consumers.
    ///   - isTerminal: a value after which the broadcaster finishes by itself.
    public init(
        initial: Value? = nil, bufferingPolicy: AsyncStream<Value>.Continuation.BufferingPolicy = .unbounded,
        isTerminal: @escaping @Sendable (Value) -> Bool = { _ in false }
    ) {
        state = Mutex(State(latest: initial))
        self.isTerminal = isTerminal
        self.bufferingPolicy = bufferingPolicy
    }

    /// The latest value, if any.
    public var latest: Value? { state.withLock { $0.latest } }

    public var isFinished: Bool { state.withLock { $0.isFinished } }

    /// A new subscription: the latest value (if any), then every later one, until finished.
    public func stream() -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: bufferingPolicy)
        let finishNow: Bool = state.withLock { state in
            if let latest = state.latest { continuation.yield(latest) }
            guard !state.isFinished else { return true }
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = continuation
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
            }
            return false
        }
        if finishNow { continuation.finish() }
        return stream
    }

    /// Sends `value` to every subscriber (ignored after finishing).
    public func yield(_ value: Value) {
        let terminal = isTerminal(value)
        let ended: [AsyncStream<Value>.Continuation] = state.withLock { state in
            guard !state.isFinished else { return [] }
            state.latest = value
            // Yielding under the lock keeps every subscriber's order equal to the yield order.
            for continuation in state.subscribers.values { continuation.yield(value) }
            guard terminal else { return [] }
            return Self.close(&state)
        }
        // Outside the lock: finish() runs onTermination, which takes the lock.
        for continuation in ended { continuation.finish() }
    }

    /// Ends every subscription; later subscribers get the latest value and the end.
    public func finish() {
        let ended = state.withLock { Self.close(&$0) }
        for continuation in ended { continuation.finish() }
    }

    private static func close(_ state: inout State) -> [AsyncStream<Value>.Continuation] {
        state.isFinished = true
        defer { state.subscribers.removeAll() }
        return Array(state.subscribers.values)
    }
}
