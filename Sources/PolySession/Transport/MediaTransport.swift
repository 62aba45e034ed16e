// The I/O shell of one call's media: UDP sockets, the shared event loop, a timer at the endpoint's next
// deadline and the loop's 20 ms frame clock around a sans-IO MediaEndpoint.
import PolyAudio
import PolyCore
import PolyMedia
import PolyNet

/// Runs one `MediaEndpoint` on an `EventLoop` (all calls of a process share `EventLoop.shared`).
///
/// One UDP socket per local address (port 0), or an injected `MediaDatagramLink` (a bridge's shared port)
/// instead of sockets of its own. Every 20 ms the loop's frame clock (one for all calls on the loop, see
/// `EventLoop.addFrameListener`) reads a frame from `source`,
/// sends it, pulls 20 ms of playout and writes it to `sink` (file audio is paced in real time by this
/// clock). Events reach `onEvent` on the loop thread, in order. The signaling-facing methods may be called
/// from any thread or task: they hop onto the loop and return there.
///
/// Sendable: every mutable member is touched on the loop thread only (checked by `assertOnLoop`).
public final class MediaTransport: FrameClockListener, @unchecked Sendable {
    /// Called on the loop thread for every event of the endpoint.
    public typealias EventHandler = @Sendable (MediaEvent) -> Void

    public let loop: EventLoop
    private let endpoint: MediaEndpoint
    private let source: (any AudioFrameSource)?
    private let encodedSource: (any EncodedFrameSource)?
    private let sink: (any AudioFrameSink)?
    private let onEvent: EventHandler
    /// Datagrams go through this instead of `sockets` when set.
    private let link: (any MediaDatagramLink)?
    /// TLS trust for `turns:` relays, by extra CA file (loaded here, off the loop: it reads files).
    private let tlsContexts: [String: Result<TLSClientContext, TLSError>]
    /// Impairs this call's own datagrams once media connects (nil: none).
    private let impairmentConfiguration: NetworkImpairment?

    // Loop thread only.
    private var sockets: [UDPSocket] = []
    private var registrations: [EventLoop.Registration] = []
    /// TCP/TLS TURN relays, by the endpoint's stream id.
    private var relayStreams: [Int: RelayStreamConnection] = [:]
    private var timer: (timer: EventLoop.Timer, deadline: Instant)?
    private var clockSubscription: FrameClockSubscription?
    private var linkUfrag: String?
    /// The running impairment (from the first `.connected`) and its delay queue's timer.
    private var impairment: DatagramImpairment?
    private var impairmentTimer: (timer: EventLoop.Timer, deadline: Instant)?
    private var gatheringWaiters: [CheckedContinuation<String, any Error>] = []
    private var closed = false
    /// Preallocated for the 20 ms clock (raw buffers: no uniqueness or exclusivity checks per tick).
    private let sendFrame: UnsafeMutableBufferPointer<Int16>
    private let playFrame: UnsafeMutableBufferPointer<Int16>

    /// The frame the audio clock moves per tick.
    public static let frameDuration: Duration = EventLoop.framePeriod

    /// Binds one socket per address in `localIPs` (port 0), registers them on `loop` and starts gathering
    /// and the audio clock. Throws if the endpoint cannot be set up or no socket binds.
    public convenience init(
        configuration: MediaEndpointConfiguration, localIPs: [IPAddress] = [.loopbackV4], loop: EventLoop = .shared,
        source: (any AudioFrameSource)? = nil, sink: (any AudioFrameSink)? = nil,
        impairment: NetworkImpairment? = nil, onEvent: @escaping EventHandler = { _ in }
    ) throws {
        var bound: [UDPSocket] = []
        for ip in localIPs {
            bound.append(try UDPSocket(bindingTo: TransportAddress(ip: ip, port: 0)))
        }
        guard !bound.isEmpty else { throw MediaEndpointError.setup("no local address to bind") }
        try self.init(
            configuration: configuration, loop: loop, link: nil, source: source, sink: sink, impairment: impairment,
            onEvent: onEvent)
        let opened = bound
        loop.execute { [self] in
            for socket in opened { adopt(socket) }
            start(localAddresses: sockets.map(\.localAddress))
        }
    }

    /// Runs on `link` (its loop, its address) instead of binding sockets: the link delivers this call's
    /// datagrams and is told the local ICE ufrag whenever it changes. `restartICE(localIPs:)` cannot rebind.
    public convenience init(
        configuration: MediaEndpointConfiguration, link: any MediaDatagramLink,
        source: (any AudioFrameSource)? = nil, sink: (any AudioFrameSink)? = nil,
        impairment: NetworkImpairment? = nil, onEvent: @escaping EventHandler = { _ in }
    ) throws {
        try self.init(
            configuration: configuration, loop: link.loop, link: link, source: source, sink: sink,
            impairment: impairment, onEvent: onEvent)
        link.loop.execute { [self] in
            link.open { [weak self] datagram, source in self?.received(datagram, from: source, to: link.localAddress) }
            start(localAddresses: [link.localAddress])
        }
    }

    private init(
        configuration: MediaEndpointConfiguration, loop: EventLoop, link: (any MediaDatagramLink)?,
        source: (any AudioFrameSource)?, sink: (any AudioFrameSink)?, impairment: NetworkImpairment?,
        onEvent: @escaping EventHandler
    ) throws {
        if let impairment {
            do { try impairment.validate() } catch { throw MediaEndpointError.setup(error.description) }
        }
        impairmentConfiguration = impairment.flatMap { $0.send.isClean && $0.receive.isClean ? nil : $0 }
        self.loop = loop
        self.link = link
        // Here, off the loop: the first session's library set-up would stall the loop (and every call on it).
        SRTPSession.prepareLibrary()
        endpoint = try MediaEndpoint(configuration: configuration)
        self.source = source
        encodedSource = source as? any EncodedFrameSource
        self.sink = sink
        self.onEvent = onEvent
        var contexts: [String: Result<TLSClientContext, TLSError>] = [:]
        for relay in configuration.turnServers where relay.relayProtocol == .tls {
            let key = relay.trustedCAFile ?? ""
            if contexts[key] == nil {
                contexts[key] = Result { () throws(TLSError) in
                    try TLSClientContext.shared(extraCAFile: relay.trustedCAFile)
                }
            }
        }
        tlsContexts = contexts
        let samples = configuration.codec.samplesPerFrame * configuration.codec.channels
        sendFrame = .allocate(capacity: samples)
        sendFrame.initialize(repeating: 0)
        playFrame = .allocate(capacity: endpoint.playoutFrameSamples)
        playFrame.initialize(repeating: 0)
    }

    deinit {
        sendFrame.deallocate()
        playFrame.deallocate()
    }

    // MARK: Signaling-facing calls (any thread)

    /// The client's offer, once gathering has finished (waits for it).
    public func createOffer() async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            loop.execute { [self] in
                offerWhenGathered(continuation)
                drain()
            }
        }
    }

    /// Applies the bridge's answer (initial or ICE restart).
    public func applyAnswer(_ sdp: String) async throws {
        try await onLoop { endpoint, now in try endpoint.applyAnswer(sdp, at: now) }
    }

    /// Answers an offer (bridge: the client's offer or an ICE restart; client: the bridge's pull offer).
    public func applyOffer(_ sdp: String) async throws -> String {
        try await onLoop { endpoint, now in try endpoint.applyOffer(sdp, at: now) }
    }

    /// Bridge: the pull offer adding the agent's line.
    public func createPullOffer() async throws -> String {
        try await onLoop { endpoint, now in try endpoint.createPullOffer(at: now) }
    }

    /// Bridge: the client's answer to the pull offer.
    public func applyPullAnswer(_ sdp: String) async throws {
        try await onLoop { endpoint, now in try endpoint.applyPullAnswer(sdp, at: now) }
    }

    /// Client: rebinds to `localIPs` (new sockets for new addresses, old ones closed), restarts ICE and
    /// returns the restart offer for the bridge's `iceRestartUrl`. Media keeps flowing on the old pair
    /// while it still works.
    public func restartICE(localIPs: [IPAddress]? = nil) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            loop.execute { [self] in
                do {
                    if let localIPs { try rebind(to: localIPs) }
                    try endpoint.restartICE(at: .now())
                    syncLinkUfrag()
                    offerWhenGathered(continuation)
                } catch {
                    continuation.resume(throwing: error)
                }
                drain()
            }
        }
    }

    /// Muted: encoded silence is sent (RTP keeps flowing).
    public func setMuted(_ muted: Bool) {
        loop.execute { [self] in endpoint.setMuted(muted) }
    }

    /// Queues DTMF digits on the audio stream (`MediaEndpoint.sendDTMF`): RFC 4733 events if negotiated,
    /// else in-band tones; returns which.
    public func sendDTMF(_ digits: String, duration: Duration) async throws(DTMFError) -> DTMFMethod {
        do {
            return try await onLoop { endpoint, now in try endpoint.sendDTMF(digits, duration: duration, at: now) }
        } catch let error as DTMFError {
            throw error
        } catch {
            throw .notConnected
        }
    }

    /// Drops buffered received audio at once (barge-in).
    public func flushPlayout() {
        loop.execute { [self] in endpoint.flushPlayout() }
    }

    /// Outage recovery: checks the selected pair now and every 200 ms until it answers (`MediaEndpoint.checkConnectivity`).
    public func checkConnectivity() {
        loop.execute { [self] in
            guard !closed else { return }
            endpoint.checkConnectivity(at: .now())
            drain()
        }
    }

    /// A snapshot of the call's media statistics.
    public func stats() async -> MediaStats {
        await withCheckedContinuation { continuation in
            loop.execute { [self] in continuation.resume(returning: endpoint.stats) }
        }
    }

    /// The loss percentage the encoder plans FEC for, and FEC recoveries so far (diagnostics).
    public func diagnostics() async -> (encoderLossPercent: Int, fecRecoveries: UInt64) {
        await withCheckedContinuation { continuation in
            loop.execute { [self] in
                continuation.resume(
                    returning: (endpoint.encoderLossPercent, endpoint.playoutStatistics.fecPacketsRecovered))
            }
        }
    }

    /// What the impairment did so far in each direction (nil without one, or before media connected).
    public func impairmentCounters() async -> (send: ImpairmentCounters, receive: ImpairmentCounters)? {
        await withCheckedContinuation { continuation in
            loop.execute { [self] in
                continuation.resume(returning: impairment.map { ($0.counters(.send), $0.counters(.receive)) })
            }
        }
    }

    /// The bound socket addresses.
    public func localAddresses() async -> [TransportAddress] {
        await withCheckedContinuation { continuation in
            loop.execute { [self] in
                continuation.resume(returning: link.map { [$0.localAddress] } ?? sockets.map(\.localAddress))
            }
        }
    }

    /// Hangs up media: RTCP BYE and DTLS close_notify are sent, then the clock, timer and sockets stop and
    /// the source and sink are closed. Idempotent; returns once everything is released.
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.execute { [self] in
                shutDown()
                continuation.resume()
            }
        }
    }

    // MARK: Loop thread

    private func onLoop<T: Sendable>(
        _ body: @escaping @Sendable (MediaEndpoint, Instant) throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            loop.execute { [self] in
                let result = Result { try body(endpoint, .now()) }
                syncLinkUfrag()  // before the answer leaves: the caller's checks may follow at once
                continuation.resume(with: result)
                drain()
            }
        }
    }

    private func offerWhenGathered(_ continuation: CheckedContinuation<String, any Error>) {
        do {
            continuation.resume(returning: try endpoint.createOffer(at: .now()))
        } catch MediaEndpointError.gatheringIncomplete {
            gatheringWaiters.append(continuation)
        } catch {
            continuation.resume(throwing: error)
        }
    }

    private func start(localAddresses: [TransportAddress]) {
        endpoint.handle(.localAddresses(localAddresses), at: .now())
        syncLinkUfrag()
        startAudioClock()
        drain()
    }

    /// Tells the link the endpoint's ufrag when it changed (start, ICE restart).
    private func syncLinkUfrag() {
        guard let link, !closed else { return }
        let ufrag = endpoint.localUfrag
        guard ufrag != linkUfrag else { return }
        linkUfrag = ufrag
        link.setLocalUfrag(ufrag)
    }

    private func adopt(_ socket: UDPSocket) {
        let local = socket.localAddress
        sockets.append(socket)
        registrations.append(
            loop.register(socket) { [weak self] datagram, source in
                self?.received(datagram, from: source, to: local)
            })
    }

    private func rebind(to ips: [IPAddress]) throws {
        guard link == nil else { throw MediaEndpointError.wrongState("a shared media link cannot rebind") }
        let keep = sockets.filter { ips.contains($0.localAddress.ip) }
        for (index, socket) in sockets.enumerated() where !keep.contains(where: { $0 === socket }) {
            loop.unregister(registrations[index])
            socket.close()
        }
        registrations = zip(sockets, registrations).filter { pair in keep.contains { $0 === pair.0 } }.map(\.1)
        sockets = keep
        for ip in ips where !sockets.contains(where: { $0.localAddress.ip == ip }) {
            adopt(try UDPSocket(bindingTo: TransportAddress(ip: ip, port: 0)))
        }
        endpoint.handle(.localAddresses(sockets.map(\.localAddress)), at: .now())
    }

    private func received(_ datagram: UnsafeRawBufferPointer, from: TransportAddress, to: TransportAddress) {
        guard !closed else { return }
        let now = Instant.now()
        switch impairment?.offer(datagram, from: from, to: to, direction: .receive, at: now) {
        case .now?, nil: break
        case .dropped?: return
        case .queued?:
            armImpairmentTimer()
            return
        }
        endpoint.receive(datagram, from: from, to: to, at: now)
        drain()
    }

    private func transmit(_ bytes: UnsafeRawBufferPointer, from: TransportAddress, to: TransportAddress) {
        if let link {
            link.send(bytes, to: to)
            return
        }
        let socket =
            sockets.first { $0.localAddress == from } ?? sockets.first { $0.localAddress.family == to.family }
        _ = try? socket?.send(bytes, to: to)
    }

    /// Sends or delivers the delayed datagrams that are due, then re-arms for the next.
    private func releaseImpaired() {
        impairmentTimer = nil
        guard !closed else { return }
        let now = Instant.now()
        var delivered = false
        while let datagram = impairment?.popDue(at: now) {
            datagram.bytes.withUnsafeBytes { bytes in
                switch datagram.direction {
                case .send: transmit(bytes, from: datagram.from, to: datagram.to)
                case .receive:
                    endpoint.receive(bytes, from: datagram.from, to: datagram.to, at: now)
                    delivered = true
                }
            }
            impairment?.recycle(datagram.bytes)
        }
        if delivered { drain() }
        armImpairmentTimer()
    }

    /// Keeps one timer at the delay queue's earliest delivery.
    private func armImpairmentTimer() {
        guard let deadline = impairment?.nextDeadline else { return }
        if let impairmentTimer, impairmentTimer.deadline <= deadline { return }
        if let impairmentTimer { loop.cancel(impairmentTimer.timer) }
        let timer = loop.schedule(at: deadline) { [weak self] in self?.releaseImpaired() }
        impairmentTimer = (timer, deadline)
    }

    /// Sends what the endpoint queued, delivers its events, and re-arms the deadline timer.
    private func drain() {
        guard !closed else { return }
        let now = Instant.now()
        while let output = endpoint.pollOutput(at: now) {
            switch output {
            case .transmit(let bytes, let from, let to):
                bytes.withUnsafeBytes { datagram in
                    switch impairment?.offer(datagram, from: from, to: to, direction: .send, at: now) {
                    case .now?, nil: break
                    case .dropped?: return
                    case .queued?: return armImpairmentTimer()
                    }
                    transmit(datagram, from: from, to: to)
                }
            case .openStream(let stream):
                openRelayStream(stream)
            case .streamTransmit(let bytes, let stream):
                relayStreams[stream]?.write(bytes)
            case .closeStream(let stream):
                relayStreams.removeValue(forKey: stream)?.close()
            case .event(let event):
                if event == .gatheringComplete { resumeGatheringWaiters() }
                if event == .connected, impairment == nil, let impairmentConfiguration {
                    impairment = DatagramImpairment(impairmentConfiguration, start: now)
                }
                onEvent(event)
            }
        }
        armTimer()
    }

    private func openRelayStream(_ stream: RelayStream) {
        let id = stream.id
        relayStreams[id]?.close()
        relayStreams[id] = RelayStreamConnection(
            stream, tlsContext: tlsContexts[stream.trustedCAFile ?? ""], loop: loop,
            onBytes: { [weak self] bytes in
                guard let self, !closed else { return }
                endpoint.handle(.streamReceived(bytes, stream: id), at: .now())
                drain()
            },
            onClosed: { [weak self] reason in
                guard let self, !closed else { return }
                relayStreams[id] = nil
                endpoint.handle(.streamClosed(stream: id, reason: reason), at: .now())
                drain()
            })
    }

    private func resumeGatheringWaiters() {
        let waiters = gatheringWaiters
        gatheringWaiters.removeAll()
        for waiter in waiters { offerWhenGathered(waiter) }
    }

    /// Keeps a timer at or before the endpoint's next deadline. A timer already armed earlier is kept (an
    /// early timeout is harmless: the endpoint acts on what is due and the timer is re-armed), because the
    /// stall deadline moves with every received packet and re-arming per packet costs more than the
    /// packet's other work.
    private func armTimer() {
        guard let deadline = endpoint.nextDeadline() else {
            if let timer { loop.cancel(timer.timer) }
            timer = nil
            return
        }
        if let timer, timer.deadline <= deadline { return }
        if let timer { loop.cancel(timer.timer) }
        let scheduled = loop.schedule(at: deadline) { [weak self] in
            guard let self else { return }
            self.timer = nil
            self.endpoint.handle(.timeout, at: .now())
            self.drain()
        }
        timer = (scheduled, deadline)
    }

    private func startAudioClock() {
        clockSubscription = loop.addFrameListener(self)
    }

    /// One 20 ms step of the loop's frame clock: send a frame, play a frame.
    public func frameTick(at now: Instant) {
        guard !closed else { return }
        if let encodedSource {
            encodedSource.withNextPayload { endpoint.sendEncodedAudio($0, at: now) }
        } else if let source {
            _ = source.read(into: sendFrame)
            endpoint.sendAudio(UnsafeBufferPointer(sendFrame), at: now)
        }
        endpoint.pullPlayout(into: playFrame, at: now)
        sink?.write(UnsafeBufferPointer(playFrame))
        drain()
    }

    private func shutDown() {
        guard !closed else { return }
        endpoint.close(at: .now())
        drain()
        closed = true
        if let timer { loop.cancel(timer.timer) }
        if let impairmentTimer { loop.cancel(impairmentTimer.timer) }
        impairmentTimer = nil
        if let clockSubscription { loop.removeFrameListener(clockSubscription) }
        timer = nil
        clockSubscription = nil
        for registration in registrations { loop.unregister(registration) }
        for socket in sockets { socket.close() }
        for stream in relayStreams.values { stream.close() }
        relayStreams.removeAll()
        link?.close()
        registrations.removeAll()
        sockets.removeAll()
        source?.close()
        sink?.close()
        let waiters = gatheringWaiters
        gatheringWaiters.removeAll()
        for waiter in waiters { waiter.resume(throwing: MediaEndpointError.wrongState("closed")) }
    }
}
