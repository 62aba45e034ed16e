// Records an events socket's updates in the background, for real-socket tests.
import PolySignaling
import Synchronization

public final class EventsSocketRecorder: Sendable {
    private let updates = Mutex<[EventsSocket.Update]>([])

    public init(_ socket: EventsSocket) {
        let stream = socket.updates
        Task { [self] in
            for await update in stream { updates.withLock { $0.append(update) } }
        }
    }

    /// Every update so far, oldest first.
    public var all: [EventsSocket.Update] { updates.withLock { $0 } }

    /// The bridge events received so far.
    public var events: [BridgeEvent] {
        all.compactMap {
            if case .event(let event) = $0 { return event }
            return nil
        }
    }

    /// How the socket closed, once it has.
    public var close: WebSocketClose? {
        all.lazy.compactMap {
            if case .closed(let close) = $0 { return close }
            return nil
        }.first
    }
}
