// The media of one call, sans-IO: ICE + DTLS + SRTP + RTP/RTCP + Opus + jitter buffer composed behind one
// handle / pollOutput / nextDeadline interface, usable by both the client and the bridge.
import PolyAudio
import PolyCore
import PolyMedia
import PolyNet

/// One call's media session, without sockets, threads or clocks.
///
/// Drive it like every core here: `handle(_:at:)` for datagrams, local addresses and timeouts, drain
/// `pollOutput(at:)` until nil after every call (it also fires due timers), and call again at
/// `nextDeadline()`. Audio goes in with `sendAudio(_:at:)` every 20 ms and comes out with
/// `pullPlayout(into:at:)`. Signaling (offers and answers as SDP text) is in `MediaEndpoint+Signaling.swift`.
///
/// A class, not a struct: it owns OpenSSL, libsrtp and libopus state with identity. Not Sendable: one
/// thread at a time (the event loop's in `MediaTransport`).
public final class MediaEndpoint {
    public let configuration: MediaEndpointConfiguration

    // MARK: Components
    var ice: ICEAgent
    var dtls: DTLSEndpoint? { didSet { dtlsDeadline = dtls?.nextDeadline() } }
    var srtp: SRTPSession?
    /// The call's one Opus encoder, reconfigured when the coding mode changes (`selectCodingMode`).
    let encoder: OpusEncoder
    /// Each mode's settings: the main one (SILK with FEC for a lossy path) and `configuration.cleanPathCoding`'s,
    /// used while the far end reports no loss. The sender policy keeps both current.
    var coding: (main: OpusEncoderSettings, cleanPath: OpusEncoderSettings?)
    /// Whether the encoder is in the clean-path mode now.
    var codingCleanPath = false
    var jitter: JitterBuffer<OpusDecoder>
    var outgoing: RTPOutgoingStream
    var receiveStatistics = RTPReceiveStatistics()
    var remoteSSRC: UInt32?
    var rtcp: RTCPReportScheduler
    var remoteInbound = RemoteInboundRTPStats()
    var lossHint: LossHint
    /// Bitrate, band, FEC and DTX from `configuration.codec`, the far end's fmtp and the loss hint.
    var senderPolicy: SenderCodecPolicy
    var random: SeededRandom
    /// TURN allocations (client only), in `configuration.turnServers` order.
    var relays: [RelayAllocation] = []
    var nextRelayStreamID = 0
    /// Why TURN servers gave no candidate (for `pathsTried`).
    var relayFailures: [String] = []

    // MARK: Negotiation
    var localAddresses: [TransportAddress] = []
    var gatheringStarted = false
    var sessionID: UInt64
    var sessionVersion: UInt64 = 1
    /// Our view of the negotiated m-lines (directions from our side).
    var lines: [MediaLine] = []
    /// Lines of an offer we sent and whose answer is pending.
    var offeredLines: [MediaLine]?
    var remoteFingerprints: [DTLSFingerprint] = []
    var dtlsRole: DTLSEndpoint.Role?
    /// The bridge's agent line (added by its pull offer).
    var agentMid: String?
    /// The bridge's pull offer, until its answer arrives.
    var pendingPull: [MediaLine]?

    // MARK: Runtime
    /// The pair media uses, from ICE.
    public private(set) var selectedPair: ICESelectedPair?
    /// Where DTLS came from before a pair was selected (local, remote).
    var dtlsPeer: (local: TransportAddress, remote: TransportAddress)?
    var outputs = OutputQueue<MediaOutput>()
    /// `dtls.nextDeadline()` as of the last call into `dtls` (each is followed by `pumpDTLS`, which refreshes
    /// it). Read after every packet and tick: asking the rarely touched DTLS object itself missed the cache.
    var dtlsDeadline: Instant?
    var lastMediaAt: Instant?
    var flowing = false
    var stalled = false
    var byeReceived = false
    public private(set) var isClosed = false
    var failed = false
    public private(set) var isMuted = false
    var sentSinceReport = false
    /// Whether our last report block said packets were lost (then new losses are no news for an early report).
    var lastReportShowedLoss = false
    var lastSendAt: Instant?

    // MARK: Preallocated buffers (per-packet path)
    let frameSamples: Int
    let timestampIncrement: UInt32
    let encodeBuffer: UnsafeMutableBufferPointer<UInt8>
    let silence: UnsafeMutableBufferPointer<Int16>
    var packetBuffer = [UInt8](repeating: 0, count: 2048)
    var receiveBuffer = [UInt8](repeating: 0, count: 2048)
    var transmitRing: [[UInt8]]
    /// The negotiated telephone-event payload type (nil: DTMF goes in-band).
    var telephoneEventPayloadType: UInt8?
    var dtmfSender = DTMFSender()
    var telephoneEvents = TelephoneEventReceiver()
    /// Where an outgoing frame gets its in-band DTMF tone mixed in (the caller's frame is read-only).
    let toneFrame: UnsafeMutableBufferPointer<Int16>
    var transmitRingIndex = 0
    /// Digital silence coded once by each encoder from its reset state, and how many silent frames in a row
    /// were just sent (see MediaEndpoint+Silence.swift).
    var silencePackets = SilencePackets()

    /// Creates the endpoint; nothing happens until `.localAddresses` arrives.
    public init(configuration: MediaEndpointConfiguration) throws(MediaEndpointError) {
        self.configuration = configuration
        var random = SeededRandom(seed: configuration.seed)
        let codec = configuration.codec
        do {
            try codec.validate()
        } catch {
            throw .setup("\(error)")
        }
        let credentials: ICECredentials
        if configuration.deterministicCredentials {
            credentials = ICECredentials.random(using: &random)
        } else {
            var system = SystemRandomNumberGenerator()
            credentials = ICECredentials.random(using: &system)
        }
        var iceConfiguration = ICEConfiguration(
            mode: configuration.role == .client ? .full : .lite,
            role: configuration.role == .client ? .controlling : .controlled, credentials: credentials,
            tieBreaker: random.next(), randomSeed: random.next())
        iceConfiguration.stunServers = configuration.role == .client ? configuration.stunServers : []
        iceConfiguration.relayOnly = configuration.role == .client && configuration.relayOnly
        ice = ICEAgent(configuration: iceConfiguration)
        let policy = SenderCodecPolicy(
            codec: codec, localMaxBandwidth: configuration.encoderMaxBandwidth ?? codec.maxBandwidth)
        senderPolicy = policy
        let initialLoss =
            codec.forwardErrorCorrection ? configuration.pinnedLossHintPercent ?? codec.expectedLossPercent : 0
        do {
            let settings = OpusEncoderSettings(
                sampleRate: codec.sampleRate, channels: codec.channels,
                frameDuration: .milliseconds(Int64(codec.frameMilliseconds)),
                bitrate: policy.bitrate(lossPercent: initialLoss),
                vbr: codec.variableBitrate, complexity: codec.complexity,
                maxBandwidth: policy.maxBandwidth, inbandFEC: codec.forwardErrorCorrection,
                packetLossPercent: initialLoss,
                dtx: codec.discontinuousTransmission)
            encoder = try OpusEncoder(settings)
            let cleanPath = configuration.cleanPathCoding.map { clean in
                var cleanSettings = settings
                cleanSettings.application = clean.application
                cleanSettings.complexity = clean.complexity
                cleanSettings.maxBandwidth = clean.maxBandwidth
                cleanSettings.inbandFEC = false
                cleanSettings.packetLossPercent = 0
                cleanSettings.bitrate = policy.capped(clean.bitrate ?? policy.bitrate(lossPercent: 0))
                return cleanSettings
            }
            if let cleanPath { try cleanPath.validate() }
            coding = (settings, cleanPath)
            var jitterConfiguration = configuration.jitterBuffer
            jitterConfiguration.sampleRate = configuration.playoutSampleRate
            jitterConfiguration.rtpClockRate = Int(OpusRTPPayload.clockRate)
            // 10 ms steps (two per 20 ms pull): the buffer's target adds two steps, so smaller steps cost less delay.
            jitterConfiguration.frameSamples = configuration.playoutSampleRate / 100
            jitter = JitterBuffer(
                decoder: try OpusDecoder(sampleRate: configuration.playoutSampleRate, channels: 1),
                configuration: jitterConfiguration)
        } catch {
            throw .setup("Opus: \(error)")
        }
        frameSamples = codec.samplesPerFrame * codec.channels
        timestampIncrement = OpusRTPPayload.timestampIncrement(frameMilliseconds: Double(codec.frameMilliseconds))
        outgoing = RTPOutgoingStream(
            ssrc: UInt32.random(in: 1...UInt32.max, using: &random),
            payloadType: UInt8(SDPNegotiation.opusPayloadType),
            initialSequenceNumber: UInt16.random(in: 0...UInt16.max, using: &random),
            initialTimestamp: UInt32.random(in: 0...UInt32.max, using: &random))
        sessionID = random.next() >> 2
        rtcp = RTCPReportScheduler(
            minimumInterval: configuration.rtcpInterval, random: SeededRandom(seed: random.next()), start: .zero)
        lossHint = LossHint(
            cap: configuration.maximumLossHintPercent,
            initial: initialLoss)
        self.random = random
        encodeBuffer = .allocate(capacity: 1500)
        encodeBuffer.initialize(repeating: 0)
        silence = .allocate(capacity: frameSamples)
        silence.initialize(repeating: 0)
        toneFrame = .allocate(capacity: frameSamples)
        toneFrame.initialize(repeating: 0)
        transmitRing = (0..<16).map { _ in
            var slot: [UInt8] = []
            slot.reserveCapacity(1600)
            return slot
        }
        silencePackets = SilencePackets(encoder: encoder, coding: coding, frameSamples: frameSamples)
    }

    deinit {
        encodeBuffer.deallocate()
        silence.deallocate()
        toneFrame.deallocate()
    }

    // MARK: Sans-IO driving

    /// Feeds one input. Datagrams are demultiplexed by first byte (RFC 7983).
    public func handle(_ input: MediaInput, at now: Instant) {
        guard !isClosed else { return }
        switch input {
        case .datagram(let bytes, let from, let to):
            receive(bytes, from: from, to: to, at: now)
        case .localAddresses(let addresses):
            localAddresses = addresses
            if !gatheringStarted, !addresses.isEmpty {
                gatheringStarted = true
                makeRelays(from: addresses)
                ice.handle(.pendingRelays(relays.count), at: now)
                ice.handle(.gather(localAddresses: addresses), at: now)
                startRelays(at: now)
            }
            pumpICE(at: now)
        case .timeout:
            advance(to: now)
        case .streamReceived(let bytes, let stream):
            receiveFromStream(bytes, stream: stream, at: now)
        case .streamClosed(let stream, let reason):
            streamClosed(stream, reason: reason, at: now)
        }
    }

    /// The next output, after firing every timer due at `now`; nil when there is nothing to do.
    public func pollOutput(at now: Instant) -> MediaOutput? {
        if outputs.isEmpty, !isClosed { advance(to: now) }
        return outputs.next()
    }

    /// When the endpoint next needs `handle(.timeout)` / `pollOutput` even without input.
    public func nextDeadline() -> Instant? {
        guard !isClosed else { return nil }
        var earliest = Self.nextDeadline(of: &ice)
        earliest.formEarliest(dtlsDeadline)
        if !relays.isEmpty { earliest.formEarliest(relaysDeadline()) }
        if srtp != nil {
            earliest.formEarliest(rtcp.nextDeadline())
            if flowing, !stalled, let lastMediaAt { earliest.formEarliest(lastMediaAt + configuration.stallTimeout) }
        }
        return earliest
    }

    /// Asks the agent in place. `ice.nextDeadline()` on the stored property would first copy the whole agent
    /// (retaining each of its arrays and strings), and the shell asks after every packet and tick.
    private static func nextDeadline(of ice: inout ICEAgent) -> Instant? { ice.nextDeadline() }

    /// Fires what is due: ICE timers (through its poll), DTLS retransmissions, RTCP reports, stall detection.
    func advance(to now: Instant) {
        if !relays.isEmpty { advanceRelays(to: now) }
        pumpICE(at: now)
        if let dtls, let deadline = dtlsDeadline, deadline <= now {
            try? dtls.handle(.timeout, at: now)
            pumpDTLS(at: now)
        }
        guard srtp != nil, !isClosed else { return }
        if rtcp.isDue(at: now) { sendReport(at: now, goodbye: false) }
        if flowing, !stalled, let lastMediaAt, now >= lastMediaAt + configuration.stallTimeout {
            stalled = true
            emit(.mediaStalled)
        }
    }

    func emit(_ event: MediaEvent) { outputs.append(.event(event)) }

    /// Queues a datagram from a reused slot: no allocation once the shell has let go of the slot's last use.
    /// From a relayed address it goes through that TURN allocation instead.
    func transmit(_ bytes: ArraySlice<UInt8>, from: TransportAddress, to: TransportAddress, at now: Instant) {
        if !relays.isEmpty, sendThroughRelay(bytes, from: from, to: to, at: now) { return }
        let index = transmitRingIndex
        transmitRingIndex = (transmitRingIndex + 1) % transmitRing.count
        transmitRing[index].removeAll(keepingCapacity: true)
        transmitRing[index].append(contentsOf: bytes)
        outputs.append(.transmit(transmitRing[index], from: from, to: to))
    }

    /// Where media and DTLS go: the selected pair, else where DTLS came from.
    var mediaPath: (local: TransportAddress, remote: TransportAddress)? {
        // Field by field: binding the whole pair would copy (and retain) its two candidates on every packet.
        if let local = selectedPair?.local, let remote = selectedPair?.remote { return (local, remote) }
        return dtlsPeer
    }

    // MARK: Components' outputs

    func pumpICE(at now: Instant) {
        while let output = ice.pollOutput(at: now) {
            switch output {
            case .transmit(let bytes, let from, let to):
                send(bytes, from: from, to: to, at: now)
            case .event(let event):
                handleICEEvent(event, at: now)
            }
        }
    }

    /// Queues a datagram for the shell, or for the TURN allocation whose relayed address `from` is.
    func send(_ bytes: [UInt8], from: TransportAddress, to: TransportAddress, at now: Instant) {
        if !relays.isEmpty, sendThroughRelay(bytes, from: from, to: to, at: now) { return }
        outputs.append(.transmit(bytes, from: from, to: to))
    }

    private func handleICEEvent(_ event: ICEEvent, at now: Instant) {
        switch event {
        case .gatheringComplete(let candidates):
            if candidates.isEmpty { emit(.noPath("No local candidate to offer: \(pathsTried)")) }
            emit(.gatheringComplete)
        case .stateChanged(let state):
            if state == .failed, selectedPair == nil, configuration.role == .client {
                emit(.noPath("Every connectivity check to the bridge failed: \(pathsTried)"))
            }
            emit(.iceStateChanged(state))
        case .selectedPairChanged(let pair):
            selectedPair = pair
            emit(.selectedPairChanged(local: pair.local, remote: pair.remote))
            if !relays.isEmpty {
                bindRelayChannel(for: pair, at: now)
                releaseRetiredRelays(at: now)
            }
            if let dtls, dtls.state == .handshaking, dtlsRole == .client {
                dtls.start(at: now)
                pumpDTLS(at: now)
            }
        case .consentConfirmed:
            // The far end answered on the media path: as good as media for liveness (a quiet far end that
            // sends no RTP right after an outage is seen back as soon as it answers a check).
            if srtp != nil { noteMedia(at: now) }
        case .candidateGathered, .roleChanged, .received:
            break
        }
    }

    func pumpDTLS(at now: Instant) {
        guard let dtls else { return }
        defer { dtlsDeadline = dtls.nextDeadline() }
        while let output = dtls.pollOutput(at: now) {
            switch output {
            case .transmit(let bytes):
                if let path = mediaPath { send(bytes, from: path.local, to: path.remote, at: now) }
            case .event(.connected(let keys)):
                startSRTP(keys, at: now)
            case .event(.closed):
                emit(.remoteClosed)
            case .event(.failed(let error)):
                fail(error == .fingerprintMismatch ? "DTLS fingerprint mismatch" : "DTLS failed: \(error)")
            }
        }
    }

    private func startSRTP(_ keys: DTLSSRTPKeys, at now: Instant) {
        guard let profile = SRTPProfile(dtlsProfileID: keys.profileID) else {
            return fail("DTLS negotiated an unknown SRTP profile")
        }
        do {
            let material = try SRTPKeyingMaterial(
                profile: profile, exportedKeyingMaterial: keys.keyingMaterial, role: keys.isClient ? .client : .server)
            srtp = try SRTPSession(keyingMaterial: material)
        } catch {
            return fail("SRTP setup failed")
        }
        rtcp = RTCPReportScheduler(
            minimumInterval: configuration.rtcpInterval, random: SeededRandom(seed: random.next()), start: now)
        emit(.connected)
    }

    func fail(_ reason: String) {
        guard !failed else { return }
        failed = true
        emit(.failed(reason))
    }

    /// Notes authenticated media (SRTP or SRTCP) and reports when it starts or resumes.
    func noteMedia(at now: Instant) {
        lastMediaAt = now
        if !flowing || stalled {
            flowing = true
            stalled = false
            emit(.mediaFlowing)
        }
    }

    // MARK: Controls

    /// Muted: encoded silence is sent, so RTP (and the far end's jitter buffer) keeps flowing.
    public func setMuted(_ muted: Bool) { isMuted = muted }

    /// Outage recovery: a consent check on the selected pair now, then every 200 ms until the far end answers
    /// (the call is reconnecting); its answer reports `.mediaFlowing`. Does nothing on the bridge (ICE-lite).
    public func checkConnectivity(at now: Instant) {
        guard !isClosed else { return }
        ice.handle(.checkNow, at: now)
        pumpICE(at: now)
    }

    /// Drops the buffered received audio at once (barge-in).
    public func flushPlayout() { jitter.flush() }

    /// Hangs up: RTCP BYE, DTLS close_notify, ICE closed; emits `.closed`. Idempotent.
    public func close(at now: Instant) {
        guard !isClosed else { return }
        if srtp != nil { sendReport(at: now, goodbye: true) }
        dtls?.close(at: now)
        pumpDTLS(at: now)
        ice.handle(.close, at: now)
        closeRelays(at: now)
        isClosed = true
        emit(.closed)
    }

    /// The loss percentage the encoder currently plans FEC for: `CodecSettings.expectedLossPercent` until the
    /// far end's first receiver report, then the reported loss (smoothed, capped). 0 with FEC off.
    public var encoderLossPercent: Int { coding.main.packetLossPercent }

    /// Whether frames are coded in `configuration.cleanPathCoding`'s mode now (the far end reports no loss).
    public var isCodingCleanPath: Bool { codingCleanPath }

    /// The jitter buffer's own statistics (FEC recoveries, flushes, interruptions).
    public var playoutStatistics: JitterBufferStatistics { jitter.statistics }

    /// ICE state now.
    public var iceState: ICEConnectionState { ice.state }

    /// Whether DTLS completed and SRTP is keyed.
    public var isConnected: Bool { srtp != nil }
}
