// The events WebSocket: accepted on /api/v1/call/{id}/events; the first frame must authenticate.
import PolyCore
import PolySignaling

enum EventsSocketHandlers {
    static func make(_ core: BridgeCore) -> WebSocketHandlers {
        WebSocketHandlers(
            accepts: { path in BridgeCore.callID(inEventsPath: path) != nil },
            onOpen: { connection in core.eventsOpened(connection, at: .now()) },
            onText: { connection, text in core.eventsText(connection, text, at: .now()) },
            onClose: { connection, _ in core.eventsClosed(connection, at: .now()) })
    }
}
