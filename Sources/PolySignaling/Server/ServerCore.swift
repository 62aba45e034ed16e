// The libwebsockets side of HTTPServer: request assembly, response writing, WebSocket frames.
import CWebSockets
import PolyCore
import Synchronization

/// Work handed to the service thread from other threads.
enum ServerCommand: Sendable {
    case respond(key: Int, requestID: UInt64, HTTPResponse)
    case send(key: Int, id: UInt64, text: String)
    case close(key: Int, id: UInt64, WebSocketClose)
    case drop(key: Int, id: UInt64)
    /// Time to look at deadlines (posted by HTTPServer's timer).
    case sweep
}

/// Receives the server context's callbacks. Fields marked "service thread" are touched only there.
final class ServerCore: LWSCallbackTarget, @unchecked Sendable {
    // @unchecked: `inbox` and `nextID` are synchronised; everything else is service-thread only
    // (or written once before the service thread starts).
    let configuration: HTTPServer.Configuration
    let handler: HTTPServer.Handler
    let webSocket: WebSocketHandlers?
    var loop: LWSLoop?
    private let inbox = CommandInbox<ServerCommand>()
    private let nextID = Atomic<UInt64>(1)

    private struct PendingRequest {
        var id: UInt64
        var request: HTTPRequest
        var refused = false
        var closeAfter = false
        var response: HTTPResponse?
        var headersSent = false
    }
    private struct Socket {
        var connection: WebSocketConnection
        var assembler: MessageAssembler
        var outbox: [String] = []
        var closeRequest: WebSocketClose?
        var dropRequested = false
        var peerClose: WebSocketClose?
        var localClose: WebSocketClose?
    }
    private var requests: [Int: PendingRequest] = [:]  // service thread
    private var bodyDeadlines = DeadlineTable<Int>()  // service thread
    private var upgrades: [Int: (path: String, headers: [String: String], remote: String)] = [:]  // service thread
    private var sockets: [Int: Socket] = [:]  // service thread

    init(configuration: HTTPServer.Configuration, handler: @escaping HTTPServer.Handler, webSocket: WebSocketHandlers?)
    {
        self.configuration = configuration
        self.handler = handler
        self.webSocket = webSocket
    }

    func enqueue(_ command: ServerCommand) {
        inbox.post(command)
        loop?.wake()
    }

    private func newID() -> UInt64 { nextID.wrappingAdd(1, ordering: .relaxed).oldValue }

    func lwsCallback(
        wsi: OpaquePointer?, reason: lws_callback_reasons, user: UnsafeMutableRawPointer?,
        input: UnsafeMutableRawPointer?, length: Int
    ) -> Int32 {
        let key = Int(bitPattern: wsi)
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            drainInbox()
            return 0
        case LWS_CALLBACK_HTTP:
            guard let wsi else { return -1 }
            return beginRequest(wsi, key: key)
        case LWS_CALLBACK_HTTP_BODY:
            guard let wsi else { return -1 }
            appendBody(wsi, key: key, input: input, length: length)
            return 0
        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            guard let wsi else { return -1 }
            completeBody(wsi, key: key)
            return 0
        case LWS_CALLBACK_HTTP_WRITEABLE:
            guard let wsi else { return -1 }
            return writeResponse(wsi, key: key)
        case LWS_CALLBACK_CLOSED_HTTP:
            requests[key] = nil
            bodyDeadlines.clear(key)
            return 0
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            guard let wsi, let webSocket else { return 1 }
            let path = LWSRequestReader.copy(wsi, WSI_TOKEN_GET_URI) ?? ""
            guard webSocket.accepts(path) else { return 1 }
            upgrades[key] = (
                path, LWSRequestReader.headers(wsi, custom: configuration.capturedHeaders),
                LWSRequestReader.peerAddress(wsi)
            )
            return 0
        case LWS_CALLBACK_ESTABLISHED:
            guard let webSocket, let upgrade = upgrades.removeValue(forKey: key) else { return -1 }
            let connection = WebSocketConnection(
                id: newID(), path: upgrade.path, headers: upgrade.headers, remoteAddress: upgrade.remote, key: key,
                core: self)
            sockets[key] = Socket(
                connection: connection, assembler: MessageAssembler(limit: configuration.maxWebSocketMessageBytes))
            webSocket.onOpen(connection)
            return 0
        case LWS_CALLBACK_RECEIVE:
            guard let wsi else { return -1 }
            return receive(wsi, key: key, input: input, length: length)
        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let wsi else { return -1 }
            return writeFrames(wsi, key: key)
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            sockets[key]?.peerClose = LWSFrames.parseClose(input, length: length) ?? WebSocketClose(code: 1005)
            return 0
        case LWS_CALLBACK_CLOSED:
            upgrades[key] = nil
            guard let socket = sockets.removeValue(forKey: key) else { return 0 }
            let close = socket.peerClose ?? socket.localClose ?? WebSocketClose(code: WebSocketClose.abnormal)
            webSocket?.onClose(socket.connection, close)
            return 0
        case LWS_CALLBACK_WSI_DESTROY:
            upgrades[key] = nil
            requests[key] = nil
            bodyDeadlines.clear(key)
            return 0
        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
    }

    // MARK: - HTTP

    private func beginRequest(_ wsi: OpaquePointer, key: Int) -> Int32 {
        guard let (method, path) = LWSRequestReader.methodAndPath(wsi) else { return -1 }
        let headers = LWSRequestReader.headers(wsi, custom: configuration.capturedHeaders)
        let query = LWSRequestReader.copy(wsi, WSI_TOKEN_HTTP_URI_ARGS) ?? ""
        let request = HTTPRequest(
            method: method, path: path, query: query, headers: headers,
            remoteAddress: LWSRequestReader.peerAddress(wsi))
        var pending = PendingRequest(id: newID(), request: request)
        switch RequestHeadPolicy.decide(headers: headers, maxBodyBytes: configuration.maxBodyBytes) {
        case .dispatch:
            requests[key] = pending
            dispatch(key: key)
        case .readBody:
            requests[key] = pending
            bodyDeadlines.set(key, Instant.now() + configuration.bodyTimeout)
        case .reject(let rejection):
            // Answer now and close rather than read (or wait for) a body we would refuse.
            pending.closeAfter = true
            pending.response = RequestHeadPolicy.response(for: rejection, maxBodyBytes: configuration.maxBodyBytes)
            requests[key] = pending
            configuration.onRejected(rejection)
            lws_callback_on_writable(wsi)
        }
        return 0
    }

    /// Refuses the request being received on `key` at once and closes the connection after the answer.
    private func reject(_ wsi: OpaquePointer, key: Int, _ rejection: ServerRejection) {
        guard requests[key] != nil, requests[key]?.response == nil else { return }
        bodyDeadlines.clear(key)
        requests[key]?.request.body = []
        requests[key]?.refused = true
        requests[key]?.closeAfter = true
        requests[key]?.response = RequestHeadPolicy.response(for: rejection, maxBodyBytes: configuration.maxBodyBytes)
        configuration.onRejected(rejection)
        lws_callback_on_writable(wsi)
    }

    private func appendBody(_ wsi: OpaquePointer, key: Int, input: UnsafeMutableRawPointer?, length: Int) {
        guard var pending = requests[key], !pending.refused, pending.response == nil, let input else { return }
        guard pending.request.body.count + length <= configuration.maxBodyBytes else {
            // More than announced (or than allowed): refuse now, read no further.
            reject(wsi, key: key, .bodyTooLarge)
            return
        }
        requests[key] = nil  // avoid copy-on-write of the body while appending
        pending.request.body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
        requests[key] = pending
    }

    private func completeBody(_ wsi: OpaquePointer, key: Int) {
        guard let pending = requests[key], pending.response == nil, !pending.refused else { return }
        bodyDeadlines.clear(key)
        dispatch(key: key)
    }

    /// Requests whose body is late are answered 408 and closed.
    private func sweep() {
        for key in bodyDeadlines.expired(at: Instant.now()) {
            guard let wsi = OpaquePointer(bitPattern: key) else { continue }
            reject(wsi, key: key, .bodyTimeout)
        }
    }

    /// Runs the handler off the service thread; its response comes back through the inbox.
    private func dispatch(key: Int) {
        guard let pending = requests[key] else { return }
        let handler = self.handler
        let request = pending.request
        let requestID = pending.id
        Task { [self] in
            let response = await handler(request)
            enqueue(.respond(key: key, requestID: requestID, response))
        }
    }

    private func writeResponse(_ wsi: OpaquePointer, key: Int) -> Int32 {
        guard let pending = requests[key], let response = pending.response else { return 0 }
        if !pending.headersSent {
            guard LWSResponseWriter.writeHeaders(wsi, response) else { return -1 }
            requests[key]?.headersSent = true
            if !response.body.isEmpty {
                lws_callback_on_writable(wsi)
                return 0
            }
        } else {
            guard LWSResponseWriter.writeBody(wsi, response.body) else { return -1 }
        }
        requests[key] = nil
        if pending.closeAfter { return -1 }
        return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
    }

    // MARK: - WebSocket

    private func receive(_ wsi: OpaquePointer, key: Int, input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        guard var socket = sockets[key] else { return -1 }
        let outcome = socket.assembler.append(input, length: length, wsi: wsi)
        sockets[key] = socket
        switch outcome {
        case .incomplete: return 0
        case .message(let text):
            webSocket?.onText(socket.connection, text)
            return 0
        case .tooBig:
            let close = WebSocketClose(code: WebSocketClose.messageTooBig, reason: "message too big")
            sockets[key]?.localClose = close
            LWSFrames.setCloseReason(wsi, code: close.code, reason: close.reason)
            return -1
        }
    }

    private func writeFrames(_ wsi: OpaquePointer, key: Int) -> Int32 {
        guard var socket = sockets[key] else { return 0 }
        if socket.dropRequested { return -1 }
        let write = LWSFrames.writeNext(wsi, outbox: &socket.outbox, closeRequest: socket.closeRequest)
        if case .closing(let close) = write { socket.localClose = close }
        if sockets[key] != nil { sockets[key] = socket }  // unless lws closed it while writing
        switch write {
        case .idle, .sent: return 0
        case .failed, .closing: return -1
        }
    }

    private func drainInbox() {
        for command in inbox.drain() {
            switch command {
            case .respond(let key, let requestID, let response):
                guard requests[key]?.id == requestID, let wsi = OpaquePointer(bitPattern: key) else { continue }
                requests[key]?.response = response
                lws_callback_on_writable(wsi)
            case .send(let key, let id, let text):
                guard sockets[key]?.connection.id == id, let wsi = OpaquePointer(bitPattern: key) else { continue }
                guard (sockets[key]?.outbox.count ?? 0) < configuration.maxQueuedWebSocketFrames else {
                    // The peer is not reading: drop it rather than queue without bound.
                    if sockets[key]?.dropRequested == false { configuration.onRejected(.webSocketSlowReader) }
                    sockets[key]?.dropRequested = true
                    // Not via a writable callback: a peer that does not read may never make the socket
                    // writable again.
                    LWSConnectionReset.reset(wsi)
                    continue
                }
                sockets[key]?.outbox.append(text)
                lws_callback_on_writable(wsi)
            case .close(let key, let id, let close):
                guard sockets[key]?.connection.id == id, let wsi = OpaquePointer(bitPattern: key) else { continue }
                if sockets[key]?.closeRequest == nil { sockets[key]?.closeRequest = close }
                lws_callback_on_writable(wsi)
            case .drop(let key, let id):
                guard sockets[key]?.connection.id == id, let wsi = OpaquePointer(bitPattern: key) else { continue }
                sockets[key]?.dropRequested = true
                LWSConnectionReset.reset(wsi)
            case .sweep:
                sweep()
            }
        }
    }
}
