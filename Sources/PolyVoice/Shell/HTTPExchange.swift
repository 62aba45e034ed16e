// One HTTP request and its response over a fresh TCPConnection (TLS over it for https:) on an event loop:
// connect (each resolved address in turn), open a CONNECT tunnel if a proxy is in between, handshake and
// verify, write the request, parse the answer with HTTPResponseParser, all inside one deadline. Nothing here
// blocks: the loop thread does the work, the caller awaits the outcome.
import PolyCore
import PolyNet
import PolySignaling
import Synchronization

/// Lives on the loop thread only (created, driven and finished there); `@unchecked Sendable` because the
/// connection's and the timer's closures, which run on that thread, hold it.
final class HTTPExchange: @unchecked Sendable {
    typealias Outcome = Result<HTTPClientResponse, SignalingError>

    struct Target: Sendable {
        let addresses: [TransportAddress]
        /// The TLS context and the name the certificate must carry (nil: plain TCP).
        let tls: (context: TLSClientContext, hostName: String)?
        /// The CONNECT request to send first when `addresses` are an HTTP proxy's (nil: the server's own).
        let tunnel: [UInt8]?
    }

    private let loop: EventLoop
    private let request: [UInt8]
    private let target: Target
    private var nextAddress = 0
    private var connection: TCPConnection?
    private var tls: TLSClientSession?
    private var connected = false
    private var parser = HTTPResponseParser()
    /// Reads the proxy's answer to CONNECT until the tunnel is open (nil: no tunnel, or open). Only the head
    /// matters: a 2xx has no body (RFC 9110 §9.3.6), and a refusal's is never read.
    private var tunnelAnswer: HTTPResponseParser?
    private var timer: EventLoop.Timer?
    private var completion: (@Sendable (Outcome) -> Void)?

    /// Sends `request` to `target` and returns the response, or the transport error that stopped it.
    static func run(_ request: [UInt8], to target: Target, timeout: Duration, on loop: EventLoop) async -> Outcome {
        // The exchange, once the loop made it, and whether the task was cancelled before that.
        let state = Mutex<(exchange: HTTPExchange?, cancelled: Bool)>((nil, false))
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                loop.execute {
                    let exchange = HTTPExchange(request, target: target, loop: loop) {
                        continuation.resume(returning: $0)
                    }
                    let cancelled = state.withLock { state in
                        state.exchange = exchange
                        return state.cancelled
                    }
                    if cancelled { return exchange.finish(.failure(.transport("cancelled"))) }
                    exchange.start(deadline: .now() + timeout)
                }
            }
        } onCancel: {
            loop.execute {
                let exchange = state.withLock { state in
                    state.cancelled = true
                    return state.exchange
                }
                exchange?.finish(.failure(.transport("cancelled")))
            }
        }
    }

    private init(
        _ request: [UInt8], target: Target, loop: EventLoop, completion: @escaping @Sendable (Outcome) -> Void
    ) {
        self.request = request
        self.target = target
        self.loop = loop
        self.completion = completion
    }

    private func start(deadline: Instant) {
        timer = loop.schedule(at: deadline) { [self] in finish(.failure(.transport("request timed out"))) }
        connectNext(after: nil)
    }

    /// Connects to the next address; `reason` is why the previous one failed (reported if none is left).
    private func connectNext(after reason: String?) {
        while nextAddress < target.addresses.count {
            let address = target.addresses[nextAddress]
            nextAddress += 1
            do {
                connection = try TCPConnection(to: address, loop: loop) { [self] event in handle(event) }
                return
            } catch {
                continue
            }
        }
        let what = target.tunnel == nil ? "connection" : "proxy connection"
        finish(.failure(.transport("\(what) failed: \(reason ?? "no usable address")")))
    }

    private func handle(_ event: TCPConnection.Event) {
        guard completion != nil else { return }
        switch event {
        case .connected:
            connected = true
            guard let tunnel = target.tunnel else { return sendRequest() }
            tunnelAnswer = HTTPResponseParser(isHeadRequest: true)
            write(tunnel)
        case .received(let bytes):
            if tunnelAnswer != nil { return receiveTunnelAnswer(bytes) }
            guard let tls else { return parse(bytes) }
            let plaintext: [UInt8]
            do throws(TLSError) {
                plaintext = try tls.receive(bytes)
            } catch .closed {
                return endOfStream()
            } catch {
                return finish(.failure(Self.transportError(error)))
            }
            write(tls.takeOutgoing())
            if !plaintext.isEmpty { parse(plaintext) }
            if tls.receivedCloseNotify { endOfStream() }
        case .closed(let reason):
            connection = nil
            if !connected { return connectNext(after: reason) }
            if tunnelAnswer != nil {
                return finish(.failure(.transport("the proxy closed the connection before opening the tunnel")))
            }
            if let tls, !tls.isEstablished {
                return finish(
                    .failure(.transport("TLS failure: the server closed the connection during the handshake")))
            }
            endOfStream()
        }
    }

    /// Starts TLS (which sends the request once the handshake is done), or writes the request in the clear.
    private func sendRequest() {
        guard let settings = target.tls else { return write(request) }
        do throws(TLSError) {
            let session = try TLSClientSession(
                context: settings.context, hostName: settings.hostName,
                serverName: target.tunnel == nil
                    ? connection.map { "\($0.remoteAddress)" } ?? settings.hostName : settings.hostName)
            tls = session
            try session.start()
            try session.send(request)  // queued until the handshake is done
            write(session.takeOutgoing())
        } catch {
            finish(.failure(Self.transportError(error)))
        }
    }

    /// The proxy's answer to CONNECT: a 2xx opens the tunnel (the server speaks only after the ClientHello, so
    /// nothing follows the head); anything else fails with its status, which says why (407: credentials…).
    private func receiveTunnelAnswer(_ bytes: some Sequence<UInt8>) {
        do throws(HTTPResponseParser.ParseError) {
            guard let answer = try tunnelAnswer?.receive(bytes) else { return }
            tunnelAnswer = nil
            guard answer.isSuccess else {
                return finish(.failure(.transport("the proxy refused the tunnel (\(answer.status))")))
            }
            sendRequest()
        } catch {
            finish(.failure(.transport("bad proxy response: \(error)")))
        }
    }

    private func write(_ bytes: [UInt8]) {
        if !bytes.isEmpty { connection?.write(bytes) }
    }

    private func parse(_ bytes: some Sequence<UInt8>) {
        guard completion != nil else { return }
        do throws(HTTPResponseParser.ParseError) {
            if let response = try parser.receive(bytes) { finish(.success(response)) }
        } catch {
            finish(.failure(.transport("bad HTTP response: \(error)")))
        }
    }

    /// The server closed the stream: a response framed by the close is complete, anything else is cut short.
    private func endOfStream() {
        guard completion != nil else { return }
        do throws(HTTPResponseParser.ParseError) {
            finish(.success(try parser.finish()))
        } catch {
            finish(.failure(.transport("bad HTTP response: \(error)")))
        }
    }

    /// The text says what failed (the certificate check, the handshake…), never what was sent.
    private static func transportError(_ error: TLSError) -> SignalingError {
        .transport("TLS failure: \(error.reason)")
    }

    private func finish(_ outcome: Outcome) {
        guard let completion else { return }
        self.completion = nil
        if let timer { loop.cancel(timer) }
        timer = nil
        connection?.close()
        connection = nil
        completion(outcome)
    }
}
