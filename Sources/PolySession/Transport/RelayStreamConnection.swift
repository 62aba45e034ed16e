// The shell's side of a TCP or TLS TURN relay: one TCPConnection, with a TLS session over it for `turns:`.
import PolyCore
import PolyNet

/// One stream to a TURN server, on the loop thread only. Plaintext TURN bytes go in with `write` and come
/// out through `onBytes`; every failure (connect, reset, TLS verification) reaches `onClosed` once, always
/// later on the loop (never from inside `write`), with a reason that does not repeat the server's name.
/// `doctor --network` probes TURN servers over it too.
public final class RelayStreamConnection {
    /// Bytes queued towards the kernel beyond which further TURN messages are dropped whole (TURN over a
    /// stream has no retransmission, but dropping whole messages keeps the framing and the TLS records intact).
    static let maximumQueuedBytes = 1 << 20

    private let loop: EventLoop
    private let onBytes: @Sendable ([UInt8]) -> Void
    private let onClosed: @Sendable (String) -> Void
    private var connection: TCPConnection?
    private let tls: TLSClientSession?
    private var finished = false

    public init(
        _ stream: RelayStream, tlsContext: Result<TLSClientContext, TLSError>?, loop: EventLoop,
        onBytes: @escaping @Sendable ([UInt8]) -> Void, onClosed: @escaping @Sendable (String) -> Void
    ) {
        self.loop = loop
        self.onBytes = onBytes
        self.onClosed = onClosed
        var session: TLSClientSession?
        var setupFailure: String?
        if stream.relayProtocol == .tls {
            do throws(TLSError) {
                guard let tlsContext else { throw .setup("no TLS context") }
                session = try TLSClientSession(
                    context: tlsContext.get(), hostName: stream.hostName, serverName: stream.serverName)
            } catch {
                setupFailure = error.reason
            }
        }
        tls = session
        if let setupFailure {
            fail(setupFailure)
            return
        }
        do {
            // Sendable wrapper: the handler runs on this loop's thread, where this object lives.
            let box = WeakBox(self)
            connection = try TCPConnection(to: stream.server, loop: loop) { event in box.value?.handle(event) }
        } catch {
            fail("connect to \(stream.server): \(error.message)")
        }
    }

    /// Plaintext TURN bytes for the server (queued until connected and, for TLS, handshaken).
    public func write(_ bytes: [UInt8]) {
        guard !finished, let connection, connection.queuedBytes < Self.maximumQueuedBytes else { return }
        guard let tls else { return connection.write(bytes) }
        do throws(TLSError) {
            try tls.send(bytes)
            connection.write(tls.takeOutgoing())
        } catch {
            fail(error.reason)
        }
    }

    /// Closes the connection without reporting (teardown, or the endpoint gave the relay up).
    public func close() {
        finished = true
        connection?.close()
        connection = nil
    }

    private func handle(_ event: TCPConnection.Event) {
        guard !finished, let connection else { return }
        switch event {
        case .connected:
            guard let tls else { return }
            do throws(TLSError) {
                try tls.start()
                connection.write(tls.takeOutgoing())
            } catch {
                fail(error.reason)
            }
        case .received(let bytes):
            guard let tls else { return onBytes(Array(bytes)) }
            do throws(TLSError) {
                let plaintext = try tls.receive(bytes)
                connection.write(tls.takeOutgoing())  // handshake messages, and queued TURN bytes once established
                if !plaintext.isEmpty { onBytes(plaintext) }
            } catch {
                fail(error.reason)
            }
        case .closed(let reason):
            fail(tls?.isEstablished == false ? "\(reason) during the TLS handshake" : reason)
        }
    }

    private func fail(_ reason: String) {
        guard !finished else { return }
        close()
        let onClosed = self.onClosed
        loop.execute { onClosed(reason) }
    }
}

/// A weak reference that may cross into a `@Sendable` closure running on the owner's thread.
private final class WeakBox<T: AnyObject>: @unchecked Sendable {
    weak var value: T?
    init(_ value: T) { self.value = value }
}
