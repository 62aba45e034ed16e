// Keeps a MediaTransport's events with their arrival times so a test or benchmark can wait for them.
import PolyCore
import PolySession
import Synchronization

/// Records `MediaEvent`s (from the event loop thread) and lets a task wait for one without blocking a thread.
public final class MediaEventRecorder: Sendable {
    private let events = Mutex<[(event: MediaEvent, at: Instant)]>([])

    public init() {}

    /// Pass this as the transport's `onEvent`.
    public func record(_ event: MediaEvent) {
        let now = Instant.now()
        events.withLock { $0.append((event, now)) }
    }

    /// Every event so far, in order.
    public var all: [MediaEvent] { events.withLock { $0.map(\.event) } }

    /// The first recorded event that matches, with its time.
    public func first(where matches: (MediaEvent) -> Bool) -> (event: MediaEvent, at: Instant)? {
        events.withLock { $0.first { matches($0.event) } }
    }

    /// Waits (polling every millisecond) until an event matches or `timeout` passes; nil on timeout.
    public func wait(
        timeout: Duration, until matches: @escaping @Sendable (MediaEvent) -> Bool
    ) async -> (event: MediaEvent, at: Instant)? {
        let deadline = Instant.now() + timeout
        while Instant.now() < deadline {
            if let found = first(where: matches) { return found }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return first(where: matches)
    }

    /// Waits for `event` itself.
    public func wait(for event: MediaEvent, timeout: Duration) async -> Instant? {
        await wait(timeout: timeout) { $0 == event }?.at
    }
}
