// The libwebsockets side of EventsSocket (service thread only, except `enqueue`).
import CWebSockets
import Synchronization

enum EventsCommand: Sendable {
    case close(WebSocketClose)
    case failed(String)
    case connectTimedOut
}

final class EventsSocketCore: LWSCallbackTarget, @unchecked Sendable {
    // @unchecked: `inbox` and `slot` are synchronised; the C strings and retry policy are written by the
    // socket's thread before it starts servicing; everything else is touched only on that thread.
    private struct LoopSlot {
        var loop: LWSLoop?
        var abandoned = false
    }
    private let slot = Mutex(LoopSlot())
    private var loop: LWSLoop? { slot.withLock { $0.loop } }
    private let continuation: AsyncStream<EventsSocket.Update>.Continuation
    private let inbox = CommandInbox<EventsCommand>()
    /// Pongs received (keepalive answers), for tests and diagnostics.
    let pongs = Atomic<Int>(0)
    private var strings: [UnsafeMutablePointer<CChar>] = []
    private let retryPolicy = UnsafeMutablePointer<lws_retry_bo_t>.allocate(capacity: 1)

    private var wsi: OpaquePointer?
    private var outbox: [String]
    private var assembler: MessageAssembler
    private var closeRequest: WebSocketClose?
    private var peerClose: WebSocketClose?
    private var localClose: WebSocketClose?
    private var finished = false
    private var opened = false

    init(firstFrame: String, continuation: AsyncStream<EventsSocket.Update>.Continuation, maxMessageBytes: Int) {
        self.continuation = continuation
        outbox = [firstFrame]
        assembler = MessageAssembler(limit: maxMessageBytes)
        retryPolicy.initialize(to: lws_retry_bo_t())
    }

    deinit {
        strings.forEach { free($0) }
        retryPolicy.deallocate()
    }

    /// Records the loop once created; false if the socket was abandoned meanwhile.
    func attach(_ loop: LWSLoop) -> Bool {
        slot.withLock { slot in
            guard !slot.abandoned else { return false }
            slot.loop = loop
            return true
        }
    }

    /// The owner is gone: stop the loop (or stop it as soon as it is attached).
    func abandon() {
        let loop = slot.withLock { slot in
            slot.abandoned = true
            return slot.loop
        }
        loop?.stop()
    }

    /// The context could not be created: report the socket closed (no service thread exists).
    func failBeforeStart(_ detail: String) {
        finish(WebSocketClose(code: WebSocketClose.abnormal, reason: detail))
    }

    func enqueue(_ command: EventsCommand) {
        inbox.post(command)
        loop?.wake()
    }

    /// Starts the client connection (before the service thread runs). False if lws refused at once.
    func connect(loop: LWSLoop, target: EventsTarget, sslFlags: Int32, pingSeconds: UInt16, hangupSeconds: UInt16)
        -> Bool
    {
        func keep(_ text: String) -> UnsafePointer<CChar> {
            let copy = strdup(text)!
            strings.append(copy)
            return UnsafePointer(copy)
        }
        retryPolicy.pointee.secs_since_valid_ping = pingSeconds
        retryPolicy.pointee.secs_since_valid_hangup = hangupSeconds
        let hostHeader = target.port == (target.secure ? 443 : 80) ? target.host : "\(target.host):\(target.port)"
        var info = lws_client_connect_info()
        info.address = keep(target.host)
        info.port = Int32(target.port)
        info.path = keep(target.path)
        info.host = keep(hostHeader)
        info.origin = keep(hostHeader)
        info.ssl_connection = sslFlags
        info.local_protocol_name = keep("polyvoice-events")
        info.retry_and_idle_policy = UnsafePointer(retryPolicy)
        return loop.withContext { context in
            info.context = context
            return lws_client_connect_via_info(&info) != nil
        }
    }

    func lwsCallback(
        wsi: OpaquePointer?, reason: lws_callback_reasons, user: UnsafeMutableRawPointer?,
        input: UnsafeMutableRawPointer?, length: Int
    ) -> Int32 {
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            drainInbox()
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            self.wsi = wsi
            opened = true
            continuation.yield(.open)
            if let wsi { lws_callback_on_writable(wsi) }
        case LWS_CALLBACK_CLIENT_RECEIVE:
            guard let wsi else { return -1 }
            switch assembler.append(input, length: length, wsi: wsi) {
            case .incomplete: break
            case .message(let text):
                if let event = BridgeEvent.parse(text) { continuation.yield(.event(event)) }
            case .tooBig:
                localClose = WebSocketClose(code: WebSocketClose.messageTooBig, reason: "message too big")
                LWSFrames.setCloseReason(wsi, code: WebSocketClose.messageTooBig, reason: "message too big")
                return -1
            }
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            guard let wsi else { return -1 }
            return writeNext(wsi)
        case LWS_CALLBACK_CLIENT_RECEIVE_PONG:
            pongs.add(1, ordering: .relaxed)
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            peerClose = LWSFrames.parseClose(input, length: length) ?? WebSocketClose(code: 1005)
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            let detail = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "unknown"
            finish(WebSocketClose(code: WebSocketClose.abnormal, reason: "connection failed: \(detail)"))
        case LWS_CALLBACK_CLIENT_CLOSED:
            finish(peerClose ?? localClose ?? WebSocketClose(code: WebSocketClose.abnormal, reason: "connection lost"))
        default:
            break
        }
        return 0
    }

    private func writeNext(_ wsi: OpaquePointer) -> Int32 {
        switch LWSFrames.writeNext(wsi, outbox: &outbox, closeRequest: closeRequest) {
        case .idle, .sent: return 0
        case .failed: return -1
        case .closing(let close):
            localClose = close
            return -1
        }
    }

    private func drainInbox() {
        for command in inbox.drain() {
            switch command {
            case .close(let close):
                if closeRequest == nil { closeRequest = close }
                if let wsi {
                    lws_callback_on_writable(wsi)
                } else if !finished {
                    finish(close)  // not connected yet: nothing to tell the bridge
                }
            case .failed(let detail):
                finish(WebSocketClose(code: WebSocketClose.abnormal, reason: detail))
            case .connectTimedOut:
                if !opened { finish(WebSocketClose(code: WebSocketClose.abnormal, reason: "connect timed out")) }
            }
        }
    }

    private func finish(_ close: WebSocketClose) {
        wsi = nil
        loop?.stop()
        guard !finished else { return }
        finished = true
        continuation.yield(.closed(close))
        continuation.finish()
    }
}
