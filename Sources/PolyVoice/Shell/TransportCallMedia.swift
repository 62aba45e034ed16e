// The real media session of a call: a MediaTransport on one of the process's event loops behind the CallMedia steps.
import PolyCore
import PolyMedia
import PolyNet
import PolySession
import Synchronization

/// Adapts `MediaTransport` (client role) to the shell's steps and its events to `CallMediaEvent`s.
final class TransportCallMedia: CallMedia {
    private let transport: MediaTransport
    private let restartAnswered = Atomic<Bool>(false)

    private init(transport: MediaTransport) { self.transport = transport }

    /// Makes the transport: one socket per usable local address (loopback for a bridge on this machine).
    /// STUN server names are resolved here, off the event loop; one that does not resolve fails the call.
    static let factory: CallMediaFactory = { setup in
        let stunServers = try await STUNServerResolver.resolve(setup.iceServers.flatMap(\.urls))
        var configuration = MediaEndpointConfiguration(
            role: .client, codec: setup.options.codec, certificate: try DTLSCertificate.shared(),
            stunServers: stunServers)
        configuration.turnServers = await TURNServerResolver.resolve(
            setup.iceServers, trustedCAFile: setup.options.trustedCAFile, logger: setup.logger)
        configuration.relayOnly = setup.options.iceTransportPolicy == .relay
        configuration.cname = "polyvoice"
        let localIPs = try localIPs(forBridge: setup.bridgeHost)
        setup.logger.debug("media on \(localIPs.map { "\($0)" }.joined(separator: ", "))")
        let events = MediaEventMapper(onEvent: setup.onEvent, logger: setup.logger)
        // Calls are spread over one loop per core (as the bridge does): many calls in one process (a load
        // test) then use every core; a single call takes one loop like any other.
        let transport = try MediaTransport(
            configuration: configuration, localIPs: localIPs, loop: EventLoopGroup.shared.next(),
            source: setup.audio.source, sink: setup.audio.sink,
            impairment: setup.options.networkImpairment, onEvent: { events.handle($0) })
        return TransportCallMedia(transport: transport)
    }

    func createOffer() async throws -> (sdp: String, mid: String) {
        (try await transport.createOffer(), "0")
    }

    func applyAnswer(_ sdp: String) async throws { try await transport.applyAnswer(sdp) }
    func applyOffer(_ sdp: String) async throws -> String { try await transport.applyOffer(sdp) }

    func restartICE() async throws -> String {
        // New sockets on the addresses there are now (the old ones may be gone).
        let ips = try Self.localIPs(forBridge: nil)
        return try await transport.restartICE(localIPs: ips)
    }

    func applyRestartAnswer(_ sdp: String) async throws { try await transport.applyAnswer(sdp) }

    /// A consent check now and every 200 ms until the bridge answers; the answer counts as media flowing.
    func keepChecking() async { transport.checkConnectivity() }

    func usesLocalAddress(_ ip: String) async -> Bool {
        await transport.localAddresses().contains { "\($0.ip)" == ip }
    }

    func setMuted(_ muted: Bool) async { transport.setMuted(muted) }

    func sendDTMF(_ digits: String, duration: Duration) async throws(DTMFError) -> DTMFMethod {
        try await transport.sendDTMF(digits, duration: duration)
    }
    func flushPlayout() async { transport.flushPlayout() }
    func stats() async -> MediaStats { await transport.stats() }
    func close() async { await transport.close() }

    /// Loopback for a bridge on this machine; otherwise every usable non-loopback address.
    static func localIPs(forBridge host: String?) throws -> [IPAddress] {
        if let host, host == "127.0.0.1" || host == "localhost" || host == "::1" { return [.loopbackV4] }
        let found = try LocalAddresses.enumerate().map(\.ip).filter { !$0.isLoopback }
        return found.isEmpty ? [.loopbackV4] : found
    }
}

/// Turns the endpoint's events into the shell's. The endpoint reports `mediaFlowing` once when media
/// starts (or resumes) and `mediaStalled` when it stops; the state machine wants to hear about inbound
/// media regularly, so between the two a pacer repeats `mediaFlowing` every 250 ms.
private final class MediaEventMapper: Sendable {
    let onEvent: @Sendable (CallMediaEvent) -> Void
    let logger: Logger
    private let pacer = Mutex<Task<Void, Never>?>(nil)

    init(onEvent: @escaping @Sendable (CallMediaEvent) -> Void, logger: Logger) {
        self.onEvent = onEvent
        self.logger = logger
    }

    deinit { pacer.withLock { $0?.cancel() } }

    private func setFlowing(_ flowing: Bool) {
        let onEvent = onEvent
        pacer.withLock { task in
            task?.cancel()
            task = nil
            guard flowing else { return }
            task = Task {
                while !Task.isCancelled {
                    onEvent(.mediaFlowing)
                    try? await Task.sleep(for: .milliseconds(250))
                }
            }
        }
    }

    func handle(_ event: MediaEvent) {
        switch event {
        case .iceStateChanged(let state):
            logger.debug("ICE \(state)")
            switch state {
            case .connected, .completed: onEvent(.iceConnected)
            case .disconnected: onEvent(.iceDisconnected)
            case .failed: onEvent(.iceFailed)
            case .new, .checking, .closed: break
            }
        case .connected: onEvent(.connected)
        case .mediaFlowing: setFlowing(true)
        case .mediaStalled:
            setFlowing(false)
            onEvent(.mediaStalled)
        case .remoteBye, .remoteClosed:
            setFlowing(false)
            onEvent(.remoteClosed)
        case .failed(let reason):
            setFlowing(false)
            onEvent(.failed(reason))
        case .selectedPairChanged(let local, let remote): logger.debug("selected pair \(local) → \(remote)")
        case .noPath(let reason):
            setFlowing(false)
            onEvent(.noPath(reason))
        case .relayFailed(let reason): logger.warn("TURN relay unavailable: \(reason)")
        case .relayReallocated(let server):
            logger.info("TURN server \(server) gave a new relayed address: restarting ICE")
            onEvent(.relayAddressChanged)
        case .closed: setFlowing(false)
        case .dtmfReceived(let dtmf): logger.debug("DTMF \(dtmf.digit) received")
        case .gatheringComplete: break
        }
    }
}
