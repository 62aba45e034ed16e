// The reference voice bridge, embeddable in-process: `Bridge(configuration).start()` → port.
import Dispatch
import FoundationEssentials
import PolyCore
import PolyNet
import PolySignaling
import Synchronization

/// A local voice bridge speaking PROTOCOL.md (plus the `iceRestartUrl` and `resumeGraceSeconds`
/// extensions) on one HTTP/WebSocket server. Calls are reaped by a timer that drives `CallReaper` (and, after
/// calls end, `HeapTrimmer`).
public final class Bridge: Sendable {
    public let configuration: BridgeConfiguration
    private struct Running: @unchecked Sendable {
        // @unchecked: DispatchSourceTimer is thread-safe for cancel(); only touched under the lock.
        var server: HTTPServer
        var core: BridgeCore
        var timer: any DispatchSourceTimer
        var mediaPort: SharedMediaPort?
    }
    private let running = Mutex<Running?>(nil)

    public init(configuration: BridgeConfiguration) { self.configuration = configuration }

    /// Loads the agent, binds and starts serving; returns the port.
    @discardableResult
    public func start() throws(BridgeError) -> Int {
        OpenSSLExitCleanUp.disable()  // as in PolyCall: calls' I/O threads may still close DTLS sessions at `exit`
        guard !configuration.tokens.isEmpty || configuration.allowAnyToken else { throw .noTokens }
        let template: AgentTemplate
        do { template = try AgentTemplate(configuration.agent, echoProfile: configuration.agentProfile) } catch {
            throw .agent(error)
        }
        var effective = configuration
        var mediaPort: SharedMediaPort?
        if let port = configuration.mediaPort {
            guard let port = UInt16(exactly: port) else { throw .bind("media port \(port) is out of range") }
            do {
                let shared = try SharedMediaPort(
                    bindingTo: TransportAddress(ip: configuration.mediaIP, port: port),
                    logger: configuration.log.logger(category: "media"))
                effective.media = configuration.media.sharing(shared)
                mediaPort = shared
            } catch {
                throw .bind("media port: \(error)")
            }
        }
        let core = BridgeCore(configuration: effective, template: template)
        let server: HTTPServer
        do {
            server = try HTTPServer(
                configuration: .init(
                    host: configuration.host, port: configuration.port, maxBodyBytes: configuration.maxBodyBytes,
                    capturedHeaders: ["x-call-token"], headerTimeout: configuration.requestHeadTimeout,
                    bodyTimeout: configuration.requestBodyTimeout,
                    webSocketPingInterval: configuration.eventsPingInterval,
                    webSocketPongTimeout: configuration.eventsPongTimeout,
                    maxQueuedWebSocketFrames: configuration.eventsMaxQueuedFrames,
                    onRejected: BridgeRoutes.serverRejected(core)),
                webSocket: EventsSocketHandlers.make(core), handler: BridgeRoutes.handler(core))
        } catch {
            mediaPort?.close()
            throw .bind(error.description)
        }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "polyvoice-bridge-reaper"))
        let interval = DispatchTimeInterval.nanoseconds(Int(configuration.reapInterval.inSeconds * 1e9))
        timer.schedule(deadline: .now() + interval, repeating: interval)
        let trimmer = configuration.heapTrimInterval.map { HeapTrimmer(interval: $0, log: configuration.log) }
        timer.setEventHandler {
            let now = Instant.now()
            core.reap(at: now)
            trimmer?.tick(endedCalls: core.endedCalls, at: now)
        }
        let installed = running.withLock { running -> Bool in
            guard running == nil else { return false }
            running = Running(server: server, core: core, timer: timer, mediaPort: mediaPort)
            return true
        }
        guard installed else {
            server.stop()
            mediaPort?.close()
            throw .alreadyStarted
        }
        timer.resume()
        configuration.log.event(
            .info, "bridge.started",
            ["url": "http://\(configuration.host):\(server.port)/", "agent": configuration.agent.description])
        return server.port
    }

    /// The listening port (nil when stopped).
    public var port: Int? { running.withLock { $0?.server.port } }

    /// The shared media port's bound address (nil when stopped or when calls bind their own ports).
    public var mediaAddress: TransportAddress? { running.withLock { $0?.mediaPort?.localAddress } }

    /// `http://host:port/` (nil when stopped).
    public var baseURL: URL? { port.map { URL(string: "http://\(configuration.host):\($0)/")! } }

    /// Calls currently provisioned.
    public var activeCalls: Int { running.withLock { $0?.core.activeCalls ?? 0 } }

    /// Sends an event to a call's events socket (dropped when it has none). For demos and tests.
    public func send(_ event: AgentEvent, toCall callID: String) {
        running.withLock { $0?.core }?.send(event.bridgeEvent, toCall: callID)
    }

    /// The running core (nil when stopped), for tests.
    var runningCore: BridgeCore? { running.withLock { $0?.core } }

    /// Prometheus text of `/metrics`.
    public var metricsText: String { running.withLock { $0?.core }?.metricsText() ?? "" }

    /// Ends every call (closing events sockets and media), then stops the server. Idempotent.
    public func stop() {
        guard
            let stopped = running.withLock({ running in
                defer { running = nil }
                return running
            })
        else { return }
        stopped.timer.cancel()
        let sessions = stopped.core.shutdown(at: .now())
        // Media says goodbye (BYE, close_notify) and agents write their recordings before we return.
        let deadline = Instant.now() + .seconds(2)
        for session in sessions { _ = session.waitUntilClosed(timeout: max(.zero, deadline - .now())) }
        // Let the close frames go out before the service thread ends.
        DetachedThread.sleep(seconds: 0.05)
        stopped.server.stop()
        stopped.mediaPort?.close()
        configuration.log.event(.info, "bridge.stopped")
    }

    deinit { stop() }
}
