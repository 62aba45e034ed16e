// The real media of a bridge call: PolyVoice's MediaTransport (ICE-lite, DTLS, SRTP, Opus) with the
// call's agent as its audio source and sink. One UDP socket per call, calls spread round-robin over one
// event loop per core (`EventLoopGroup.shared`); or a link through the bridge's shared media port (whose
// one loop then carries all its calls).
import PolyCore
import PolyMedia
import PolyNet
import PolySession
import Dispatch
import Synchronization

/// A `BridgeMediaSession` on `MediaTransport` (role `.bridge`).
public final class TransportMediaSession: BridgeMediaSession {
    private let transport: MediaTransport
    private let driver: AgentAudioDriver
    private let shared = SharedState()
    private let logger: Logger
    private let callID: String

    /// Binds a socket on `localIP` (or takes a link of `context.sharedPort`) and starts the transport; the
    /// agent comes from `context.makeAgent()`. `context.advertise` replaces the candidates' IP, and with a
    /// shared port also their port (`HOST:PORT`, a 1:1 NAT or relay in front of the port).
    public init(context: BridgeMediaContext, localIP: IPAddress) throws(BridgeMediaError) {
        let agent: any BridgeAgent
        do { agent = try context.makeAgent() } catch { throw .unavailable("agent: \(error)") }
        let shared = self.shared
        self.logger = context.logger
        self.callID = context.callID
        driver = AgentAudioDriver(
            agent: agent, emit: context.emit,
            onTick: { now in
                // While authenticated media flows (between mediaFlowing and mediaStalled) the caller is alive.
                if shared.flowing.load(ordering: .relaxed) {
                    shared.lastPacketNanoseconds.store(now.nanoseconds, ordering: .relaxed)
                }
            })
        var configuration: MediaEndpointConfiguration
        do {
            configuration = MediaEndpointConfiguration(role: .bridge, certificate: try DTLSCertificate.shared())
        } catch {
            throw .unavailable("DTLS certificate: \(error)")
        }
        configuration.codec.sampleRate = agent.mediaProfile.sampleRate
        configuration.playoutSampleRate = agent.mediaProfile.sampleRate
        configuration.codec.complexity = agent.mediaProfile.encoderComplexity
        configuration.encoderMaxBandwidth = agent.mediaProfile.encoderMaxBandwidth
        configuration.cleanPathCoding = agent.mediaProfile.cleanPathCoding
        if !agent.mediaProfile.timeStretch { configuration.jitterBuffer.maximumStretchRatio = 0 }
        context.agentCoding.apply(to: &configuration)
        if let advertise = context.advertise {
            let mapped = TransportAddress(advertise)
            configuration.advertisedAddress = mapped?.ip ?? IPAddress(advertise)
            // Per-call ports cannot all be mapped to one port: only the shared port takes the advertised one.
            if context.sharedPort != nil { configuration.advertisedPort = mapped?.port }
        }
        let logger = context.logger
        let callID = context.callID
        let agentDriver = driver
        do {
            let onEvent: MediaTransport.EventHandler = { event in
                switch event {
                case .connected: shared.snapshot.withLock { $0.isConnected = true }
                case .mediaFlowing: shared.flowing.store(true, ordering: .relaxed)
                case .mediaStalled: shared.flowing.store(false, ordering: .relaxed)
                case .failed(let why): logger.warn("call \(callID) media failed: \(why)")
                case .dtmfReceived(let dtmf):
                    logger.info("call \(callID) DTMF \(dtmf.digit) (\(dtmf.durationSamples / 48) ms)")
                    agentDriver.receiveDTMF(dtmf)
                default: break
                }
            }
            if let port = context.sharedPort {
                transport = try MediaTransport(
                    configuration: configuration, link: port.makeLink(), source: driver, sink: driver,
                    onEvent: onEvent)
            } else {
                transport = try MediaTransport(
                    configuration: configuration, localIPs: [localIP], loop: EventLoopGroup.shared.next(),
                    source: driver, sink: driver, onEvent: onEvent)
            }
        } catch {
            throw .unavailable("\(error)")
        }
        startStatsRefresh(sampleRate: configuration.playoutSampleRate)
    }

    public func applyOffer(_ sdp: String, mid: String?) async throws(BridgeMediaError) -> String {
        do { return try await transport.applyOffer(sdp) } catch { throw Self.map(error) }
    }

    public func createPullOffer() async throws(BridgeMediaError) -> String {
        do { return try await transport.createPullOffer() } catch { throw Self.map(error) }
    }

    public func applyPullAnswer(_ sdp: String) async throws(BridgeMediaError) {
        do { try await transport.applyPullAnswer(sdp) } catch { throw Self.map(error) }
    }

    public var stats: BridgeMediaStats {
        var stats = shared.snapshot.withLock { $0 }
        let lastPacket = shared.lastPacketNanoseconds.load(ordering: .relaxed)
        if lastPacket != SharedState.never { stats.lastPacketAt = Instant(nanoseconds: lastPacket) }
        return stats
    }

    public func close() {
        guard !shared.closed.exchange(true, ordering: .relaxed) else { return }
        let transport = self.transport
        let driver = self.driver
        let logger = self.logger
        let callID = self.callID
        let done = shared.done
        Task {
            await transport.close()
            do { try driver.finish() } catch { logger.warn("call \(callID) recording failed: \(error)") }
            done.signal()
        }
    }

    public func waitUntilClosed(timeout: Duration) -> Bool {
        guard shared.closed.load(ordering: .relaxed) else { return false }
        guard shared.done.wait(timeout: .now() + timeout.inSeconds) == .success else { return false }
        shared.done.signal()  // later waiters return at once too
        return true
    }

    /// Copies the transport's RTP counters into the snapshot once a second while the call lasts.
    private func startStatsRefresh(sampleRate: Int) {
        let transport = self.transport
        let shared = self.shared
        Task {
            while !shared.closed.load(ordering: .relaxed) {
                let stats = await transport.stats()
                shared.snapshot.withLock {
                    $0.packetsReceived = stats.inboundRtp.packetsReceived
                    $0.packetsSent = stats.outboundRtp.packetsSent
                    $0.packetsLost = UInt64(max(0, stats.inboundRtp.packetsLost))
                    $0.jitterSeconds = stats.inboundRtp.jitter
                    $0.concealedSeconds = Double(stats.inboundRtp.concealedSamples) / Double(sampleRate)
                    $0.srtpAuthFailures = stats.srtp.authenticationFailures
                    $0.srtpReplayFailures = stats.srtp.replayFailures
                    $0.srtpOtherFailures = stats.srtp.otherFailures
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    private static func map(_ error: any Error) -> BridgeMediaError {
        switch error as? MediaEndpointError {
        case .invalidDescription(let why)?: .invalidSDP(why)
        case .wrongState(let why)?, .wrongRole(let why)?: .wrongState(why)
        case .gatheringIncomplete?: .wrongState("ICE gathering has not finished")
        case .setup(let why)?: .unavailable(why)
        case nil: .unavailable("\(error)")
        }
    }
}

/// What the transport's callbacks and the session share.
private final class SharedState: Sendable {
    let snapshot = Mutex(BridgeMediaStats())
    /// `BridgeMediaStats.lastPacketAt`, written every tick while media flows: an atomic, not the mutex.
    let lastPacketNanoseconds = Atomic<Int64>(never)
    static let never = Int64.min
    /// Authenticated media arrives (between `mediaFlowing` and `mediaStalled`).
    let flowing = Atomic<Bool>(false)
    let closed = Atomic<Bool>(false)
    /// Signalled once the transport has closed and the agent has written its files.
    let done = DispatchSemaphore(value: 0)
}

extension BridgeMediaFactory {
    /// Real media: one `TransportMediaSession` per call, its socket bound on `localIP` (or, when the bridge
    /// has a shared media port, a link through it).
    public static func transport(localIP: IPAddress = .loopbackV4) -> BridgeMediaFactory {
        BridgeMediaFactory { context throws(BridgeMediaError) in
            try TransportMediaSession(context: context, localIP: localIP)
        }
    }
}
