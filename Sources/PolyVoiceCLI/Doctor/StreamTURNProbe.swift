// `doctor --network`'s TURN allocation over TCP or TLS: a TCPConnection on the shared event loop (TLS over it
// for `turns:`, verified as a call verifies it), the TURN client framing STUN over the stream. The doctor
// waits for the outcome; everything else happens on the loop thread.
import Foundation
import PolyCore
import PolyNet
import Synchronization

/// One allocation over a stream, on the loop thread only.
final class StreamTURNProbe: @unchecked Sendable {
    /// Why an allocation did not happen (no credential in it).
    struct Failure: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }
    typealias Outcome = Result<TransportAddress, Failure>

    private let loop: EventLoop
    private var client: TURNClient
    private var connection: TCPConnection?
    private var tls: TLSClientSession?
    private let finished: @Sendable (Outcome) -> Void
    private var done = false

    /// Allocates on `configuration.server` (then releases it): the relayed address, or why not, within `timeout`.
    static func allocate(
        _ configuration: TURNClientConfiguration, tls: (hostName: String, caFile: String?)?,
        timeout: Duration = .seconds(5)
    ) -> Outcome {
        let outcome = Mutex<Outcome?>(nil)
        let signal = DispatchSemaphore(value: 0)
        let loop = EventLoop.shared
        let probe = Mutex<StreamTURNProbe?>(nil)
        loop.execute {
            let started = StreamTURNProbe(configuration, loop: loop) { result in
                outcome.withLock { $0 = $0 ?? result }
                signal.signal()
            }
            probe.withLock { $0 = started }
            started.start(tls: tls)
        }
        let timedOut = signal.wait(timeout: .now() + .milliseconds(Int(timeout.inMilliseconds))) == .timedOut
        loop.execute { probe.withLock { $0?.stop() } }
        if timedOut { return .failure(Failure("no answer in \(Int(timeout.inSeconds)) s (TCP to the port blocked?)")) }
        return outcome.withLock { $0 } ?? .failure(Failure("no answer"))
    }

    private init(
        _ configuration: TURNClientConfiguration, loop: EventLoop, finished: @escaping @Sendable (Outcome) -> Void
    ) {
        self.loop = loop
        self.client = TURNClient(configuration: configuration)
        self.finished = finished
    }

    private func start(tls settings: (hostName: String, caFile: String?)?) {
        let server = client.configuration.server
        do {
            if let settings {
                tls = try TLSClientSession(
                    context: TLSClientContext.shared(extraCAFile: settings.caFile), hostName: settings.hostName,
                    serverName: client.configuration.serverName)
            }
            connection = try TCPConnection(to: server, loop: loop) { [self] event in handle(event) }
        } catch let error as TLSError {
            finish(.failure(Failure(error.reason)))
        } catch {
            finish(.failure(Failure("connect to \(server): \(error)")))
        }
    }

    private func handle(_ event: TCPConnection.Event) {
        guard !done else { return }
        do throws(TLSError) {
            switch event {
            case .connected:
                if let tls {
                    try tls.start()
                    connection?.write(tls.takeOutgoing())
                }
                client.handle(.start, at: .now())
            case .received(let bytes):
                if let tls {
                    let plaintext = try tls.receive(bytes)
                    connection?.write(tls.takeOutgoing())
                    if !plaintext.isEmpty { client.handle(.received(plaintext), at: .now()) }
                } else {
                    client.handle(.received(Array(bytes)), at: .now())
                }
            case .closed(let reason):
                finish(.failure(Failure(tls?.isEstablished == false ? "\(reason) during the TLS handshake" : reason)))
                return
            }
            try pump()
        } catch {
            finish(.failure(Failure(error.reason)))
        }
    }

    /// Writes what the TURN client sends (through TLS until its handshake is done, then encrypted) and acts
    /// on its outcome.
    private func pump() throws(TLSError) {
        while let output = client.pollOutput(at: .now()) {
            switch output {
            case .transmit(let bytes):
                if let tls {
                    try tls.send(bytes)
                    connection?.write(tls.takeOutgoing())
                } else {
                    connection?.write(bytes)
                }
            case .allocated(let relayed, _, _):
                client.handle(.deallocate, at: .now())
                try pump()
                finish(.success(relayed))
                return
            case .failed(let error):
                finish(.failure(Failure(error.description)))
                return
            default:
                break
            }
        }
    }

    private func finish(_ outcome: Outcome) {
        guard !done else { return }
        done = true
        finished(outcome)
    }

    private func stop() {
        done = true
        connection?.close()
        connection = nil
    }
}
