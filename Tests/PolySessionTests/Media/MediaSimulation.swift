// A client and a bridge MediaEndpoint on a SimulatedNetwork in virtual time, with a 20 ms audio clock:
// the client sends a signal and records its playout; the bridge echoes what it receives.
import Foundation
import PolyAudio
import PolyCore
import PolyNet
import PolyVoiceTesting

@testable import PolySession

/// Adapts a MediaEndpoint to the simulated network and records its events.
final class EndpointNode: SimulationNode {
    let endpoint: MediaEndpoint
    var addresses: [TransportAddress]
    private(set) var events: [(event: MediaEvent, at: Instant)] = []
    /// What the endpoint asked of TCP/TLS TURN streams, in order.
    private(set) var streamOutputs: [MediaOutput] = []
    private var pending: [SimDatagram] = []
    private var pendingHead = 0

    init(_ endpoint: MediaEndpoint, addresses: [TransportAddress]) {
        self.endpoint = endpoint
        self.addresses = addresses
    }

    func start(at now: Instant) {
        endpoint.handle(.localAddresses(addresses), at: now)
        collect(at: now)
    }

    func handle(datagram: SimDatagram, at now: Instant) {
        endpoint.handle(.datagram(datagram.payload, from: datagram.source, to: datagram.destination), at: now)
        collect(at: now)
    }

    func handleTimeout(at now: Instant) {
        endpoint.handle(.timeout, at: now)
        collect(at: now)
    }

    func pollTransmit(at now: Instant) -> SimDatagram? {
        collect(at: now)
        guard pendingHead < pending.count else {
            pending.removeAll(keepingCapacity: true)
            pendingHead = 0
            return nil
        }
        defer { pendingHead += 1 }
        return pending[pendingHead]
    }

    func nextDeadline() -> Instant? { endpoint.nextDeadline() }

    func addressChanged(from old: TransportAddress, to new: TransportAddress, at now: Instant) {
        addresses = addresses.map { $0 == old ? new : $0 }
        endpoint.handle(.localAddresses(addresses), at: now)
        collect(at: now)
    }

    func collect(at now: Instant) {
        while let output = endpoint.pollOutput(at: now) {
            switch output {
            case .transmit(let bytes, let from, let to):
                pending.append(SimDatagram(source: from, destination: to, payload: bytes))
            case .openStream, .streamTransmit, .closeStream:
                streamOutputs.append(output)  // TURN over TCP/TLS: the simulated network carries datagrams only
            case .event(let event):
                events.append((event, now))
            }
        }
    }

    func has(_ event: MediaEvent) -> Bool { events.contains { $0.event == event } }
    func first(_ event: MediaEvent, after: Instant = .zero) -> Instant? {
        events.first { $0.event == event && $0.at >= after }?.at
    }
    var failure: String? {
        events.lazy.compactMap { if case .failed(let reason) = $0.event { reason } else { nil } }.first
    }
}

/// Every 20 ms: the client sends the next frame of its signal and plays out; the bridge plays out and
/// sends back what it played in the previous tick (an echo agent).
final class AudioClock: SimulationParticipant {
    let client: EndpointNode
    let bridge: EndpointNode
    var signal: [Int16]
    /// False: a quiet agent (the bridge sends no RTP, only RTCP).
    var bridgeSends = true
    private var position = 0
    private var next: Instant
    /// The bridge's 20 ms, at its playout rate.
    private var echo: [Int16]
    private var frame = [Int16](repeating: 0, count: 960)
    /// Everything the client played out, from its first tick.
    private(set) var clientPlayout: [Int16] = []
    private(set) var started: Instant

    init(client: EndpointNode, bridge: EndpointNode, signal: [Int16], start: Instant) {
        self.client = client
        self.bridge = bridge
        self.signal = signal
        echo = [Int16](repeating: 0, count: bridge.endpoint.playoutFrameSamples)
        next = start
        started = start
    }

    /// Restarts the signal from its beginning at the next tick, and the client's recording with it.
    func restartSignal() {
        position = 0
        clientPlayout.removeAll()
        started = next
    }

    func nextDeadline() -> Instant? { next }

    func step(at now: Instant) -> Bool {
        guard now >= next else { return false }
        for index in 0..<960 { frame[index] = position + index < signal.count ? signal[position + index] : 0 }
        position += 960
        frame.withUnsafeBufferPointer { client.endpoint.sendAudio($0, at: now) }
        if bridgeSends { echo.withUnsafeBufferPointer { bridge.endpoint.sendAudio($0, at: now) } }
        echo.withUnsafeMutableBufferPointer { bridge.endpoint.pullPlayout(into: $0, at: now) }
        frame.withUnsafeMutableBufferPointer { client.endpoint.pullPlayout(into: $0, at: now) }
        clientPlayout.append(contentsOf: frame)
        client.collect(at: now)
        bridge.collect(at: now)
        next = next + .milliseconds(20)
        return true
    }
}

/// The whole call: network, nodes, clock, and the signaling steps.
final class MediaCall {
    static let clientAddress = TransportAddress("10.0.0.1:5000")!
    static let bridgeAddress = TransportAddress("10.0.0.2:6000")!

    let scheduler = SimulationScheduler()
    let network: SimulatedNetwork
    let client: EndpointNode
    let bridge: EndpointNode
    let clientHost: SimHostID
    let bridgeHost: SimHostID
    var clock: AudioClock?

    init(
        seed: UInt64 = 7, signal: [Int16] = [], clientCodec: CodecSettings = CodecSettings(),
        rtcpInterval: Duration = .seconds(1), bridgeCleanPathCoding: CleanPathCoding? = nil,
        bridgeRate: Int = 48_000, clientTelephoneEvents: Bool = true, bridgeTelephoneEvents: Bool = true,
        clientTURNServers: [TURNRelayServer] = [], earlyLossReports: Bool = true, bridgeLossHint: Int? = nil
    ) throws {
        network = SimulatedNetwork(seed: seed)
        var clientConfiguration = MediaEndpointConfiguration(
            role: .client, codec: clientCodec, certificate: try DTLSCertificate.generate(), seed: seed)
        clientConfiguration.deterministicCredentials = true
        clientConfiguration.rtcpInterval = rtcpInterval
        clientConfiguration.turnServers = clientTURNServers
        var bridgeConfiguration = MediaEndpointConfiguration(
            role: .bridge, certificate: try DTLSCertificate.generate(), seed: seed &+ 1)
        bridgeConfiguration.deterministicCredentials = true
        bridgeConfiguration.rtcpInterval = rtcpInterval
        bridgeConfiguration.cleanPathCoding = bridgeCleanPathCoding
        clientConfiguration.earlyLossReports = earlyLossReports
        bridgeConfiguration.earlyLossReports = earlyLossReports
        bridgeConfiguration.pinnedLossHintPercent = bridgeLossHint
        clientConfiguration.telephoneEvents = clientTelephoneEvents
        bridgeConfiguration.telephoneEvents = bridgeTelephoneEvents
        // The bridge's agent audio (decoded to, encoded from) at `bridgeRate`, as the echo agent's server profile.
        bridgeConfiguration.codec.sampleRate = bridgeRate
        bridgeConfiguration.playoutSampleRate = bridgeRate
        client = EndpointNode(try MediaEndpoint(configuration: clientConfiguration), addresses: [Self.clientAddress])
        bridge = EndpointNode(try MediaEndpoint(configuration: bridgeConfiguration), addresses: [Self.bridgeAddress])
        clientHost = network.addHost(client, addresses: [Self.clientAddress])
        bridgeHost = network.addHost(bridge, addresses: [Self.bridgeAddress])
        scheduler.add(network)
        client.start(at: scheduler.now)
        bridge.start(at: scheduler.now)
        let clock = AudioClock(client: client, bridge: bridge, signal: signal, start: scheduler.now)
        self.clock = clock
        scheduler.add(clock)
    }

    /// Offer → answer → both connected (DTLS done); returns when connected or after `limit`.
    func connect(tamperFingerprint: Bool = false, limit: Duration = .seconds(5)) throws {
        scheduler.run(until: scheduler.now + .seconds(3)) { client.has(.gatheringComplete) }
        let offer = try client.endpoint.createOffer(at: scheduler.now)
        var answer = try bridge.endpoint.applyOffer(offer, at: scheduler.now)
        if tamperFingerprint {
            // Flip the first hex digit of the bridge's fingerprint as the client sees it.
            answer = answer.replacingFirstFingerprintDigit()
        }
        try client.endpoint.applyAnswer(answer, at: scheduler.now)
        client.collect(at: scheduler.now)
        bridge.collect(at: scheduler.now)
        scheduler.run(until: scheduler.now + limit) {
            (client.has(.connected) && bridge.has(.connected)) || client.failure != nil || bridge.failure != nil
        }
    }

    /// The bridge's pull (PROTOCOL.md §3): the agent's line is added and answered.
    func pull() throws {
        let offer = try bridge.endpoint.createPullOffer(at: scheduler.now)
        let answer = try client.endpoint.applyOffer(offer, at: scheduler.now)
        try bridge.endpoint.applyPullAnswer(answer, at: scheduler.now)
        client.collect(at: scheduler.now)
        bridge.collect(at: scheduler.now)
    }

    func run(for duration: Duration) { scheduler.run(for: duration) }
}

extension String {
    /// The same SDP with the first digit of the first `a=fingerprint` changed.
    func replacingFirstFingerprintDigit() -> String {
        guard let range = range(of: "a=fingerprint:sha-256 ") else { return self }
        let digitIndex = range.upperBound
        let digit = self[digitIndex]
        var copy = self
        copy.replaceSubrange(digitIndex...digitIndex, with: digit == "0" ? "1" : "0")
        return copy
    }
}

/// Test signals.
enum Signals {
    static func tone(hertz: Double, seconds: Double, amplitude: Double = 8000) -> [Int16] {
        (0..<Int(seconds * 48_000)).map { Int16(amplitude * sin(2 * Double.pi * hertz * Double($0) / 48_000)) }
    }

    /// Speech (espeak-ng via SpeechFixtures) at 48 kHz mono.
    static func speech() throws -> [Int16] {
        try WAVFile.readPipelineSamples(from: try SpeechFixtures().speech(.male))
    }

    static func floats(_ samples: [Int16]) -> [Float] { samples.map { Float($0) / 32768 } }

    /// Dominant frequency by counting upward zero crossings (for a clean tone).
    static func frequency(_ samples: ArraySlice<Int16>) -> Double {
        var crossings = 0
        var previous = samples.first ?? 0
        for sample in samples.dropFirst() {
            if previous < 0 && sample >= 0 { crossings += 1 }
            previous = sample
        }
        return Double(crossings) * 48_000 / Double(max(1, samples.count))
    }

    /// The loud 20 ms frames (RMS > 2000) of a recording's last 2 s and their median frequency: a starved
    /// loop leaves gaps (concealment) in an echoed tone, so only the loud frames are judged.
    static func echoedTone(in recording: [Int16]) -> (loudFrames: Int, medianHertz: Double) {
        let lastSeconds = Array(recording.suffix(96_000))
        let loud = stride(from: 0, to: lastSeconds.count - 959, by: 960).map { lastSeconds[$0..<($0 + 960)] }
            .filter { rms($0) > 2000 }
        let pitches = loud.map { frequency($0) }.sorted()
        return (loud.count, pitches.isEmpty ? 0 : pitches[pitches.count / 2])
    }

    static func rms(_ samples: ArraySlice<Int16>) -> Double {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }
}
