// `doctor --network`'s TURN allocation over TCP or TLS: the stream a call's relay uses (`RelayStreamConnection`
// on the shared event loop, TLS for `turns:` verified as a call verifies it), the TURN client framing STUN
// over it. The doctor waits for the outcome; everything else happens on the loop thread.
import Dispatch
import PolyCore
import PolyNet
import PolySession
import Synchronization

/// One allocation over a stream, on the loop thread only.
final class StreamTURNProbe: @unchecked Sendable {
    /// Why an allocation did not happen (no credential in it).
    struct Failure: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }
    typealias Outcome = Result<TransportAddress, Failure>

    private var client: TURNClient
    private var stream: RelayStreamConnection?
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
            let started = StreamTURNProbe(configuration) { result in
                outcome.withLock { $0 = $0 ?? result }
                signal.signal()
            }
            probe.withLock { $0 = started }
            started.start(tls: tls, loop: loop)
        }
        let timedOut = signal.wait(timeout: .now() + .milliseconds(Int(timeout.inMilliseconds))) == .timedOut
        loop.execute { probe.withLock { $0?.stop() } }
        if timedOut { return .failure(Failure("no answer in \(Int(timeout.inSeconds)) s (TCP to the port blocked?)")) }
        return outcome.withLock { $0 } ?? .failure(Failure("no answer"))
    }

    private init(_ configuration: TURNClientConfiguration, finished: @escaping @Sendable (Outcome) -> Void) {
        self.client = TURNClient(configuration: configuration)
        self.finished = finished
    }

    private func start(tls settings: (hostName: String, caFile: String?)?, loop: EventLoop) {
        let server = client.configuration.server
        let description = RelayStream(
            id: 0, server: server, serverName: client.configuration.serverName,
            relayProtocol: settings == nil ? .tcp : .tls, hostName: settings?.hostName ?? "",
            trustedCAFile: settings?.caFile)
        let context = settings.map { settings in
            Result { () throws(TLSError) in try TLSClientContext.shared(extraCAFile: settings.caFile) }
        }
        // The stream queues what is written until it is connected (and, for TLS, handshaken).
        stream = RelayStreamConnection(
            description, tlsContext: context, loop: loop,
            onBytes: { [self] bytes in
                guard !done else { return }
                client.handle(.received(bytes), at: .now())
                pump()
            },
            onClosed: { [self] reason in finish(.failure(Failure(reason))) })
        client.handle(.start, at: .now())
        pump()
    }

    /// Writes what the TURN client sends and acts on its outcome.
    private func pump() {
        while !done, let output = client.pollOutput(at: .now()) {
            switch output {
            case .transmit(let bytes):
                stream?.write(bytes)
            case .allocated(let relayed, _, _):
                client.handle(.deallocate, at: .now())
                while let output = client.pollOutput(at: .now()) {
                    if case .transmit(let bytes) = output { stream?.write(bytes) }
                }
                finish(.success(relayed))
            case .failed(let error):
                finish(.failure(Failure(error.description)))
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
        stream?.close()
        stream = nil
    }
}
