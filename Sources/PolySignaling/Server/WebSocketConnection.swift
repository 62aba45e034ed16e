// Server-side WebSocket connections and the callbacks that serve them.

/// What a server does with WebSocket upgrades. All callbacks run on the server's service thread:
/// keep them short (hand work to a task or queue) and never block in them.
public struct WebSocketHandlers: Sendable {
    /// Whether an upgrade to `path` is accepted (rejected upgrades fail the handshake).
    public var accepts: @Sendable (_ path: String) -> Bool
    public var onOpen: @Sendable (WebSocketConnection) -> Void
    public var onText: @Sendable (WebSocketConnection, String) -> Void
    /// The connection ended: the peer's or our close code, or 1006 if it dropped without one.
    public var onClose: @Sendable (WebSocketConnection, WebSocketClose) -> Void

    public init(
        accepts: @escaping @Sendable (_ path: String) -> Bool,
        onOpen: @escaping @Sendable (WebSocketConnection) -> Void = { _ in },
        onText: @escaping @Sendable (WebSocketConnection, String) -> Void,
        onClose: @escaping @Sendable (WebSocketConnection, WebSocketClose) -> Void = { _, _ in }
    ) {
        self.accepts = accepts
        self.onOpen = onOpen
        self.onText = onText
        self.onClose = onClose
    }
}

/// One accepted WebSocket. `send`, `close` and `drop` may be called from any thread.
public final class WebSocketConnection: Sendable, Hashable, CustomStringConvertible {
    /// Unique within the server.
    public let id: UInt64
    /// The upgrade request's path (without query).
    public let path: String
    /// The upgrade request's headers (lower-cased names).
    public let headers: [String: String]
    /// The client's IP address (empty if unknown).
    public let remoteAddress: String
    let key: Int
    private let core: ServerCore

    init(id: UInt64, path: String, headers: [String: String], remoteAddress: String, key: Int, core: ServerCore) {
        self.id = id
        self.path = path
        self.headers = headers
        self.remoteAddress = remoteAddress
        self.key = key
        self.core = core
    }

    /// Queues a text message.
    public func send(text: String) { core.enqueue(.send(key: key, id: id, text: text)) }

    /// Sends the queued messages, then a close frame with `code` (1000 normal, 1008 policy violation…).
    public func close(code: Int = WebSocketClose.normal, reason: String = "") {
        core.enqueue(.close(key: key, id: id, WebSocketClose(code: code, reason: reason)))
    }

    /// Resets the TCP connection without a close frame, discarding what is queued (the peer sees an abnormal
    /// 1006 closure at once, even if it has stopped reading).
    public func drop() { core.enqueue(.drop(key: key, id: id)) }

    public static func == (lhs: WebSocketConnection, rhs: WebSocketConnection) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
    public var description: String { "WebSocketConnection(\(id), \(path))" }
}
