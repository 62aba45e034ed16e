// One call of the load generator: the real client stack (BridgeClient REST, EventsSocket, MediaTransport
// with ICE, DTLS, SRTP, Opus) against the bridge's echo agent.
import Foundation
import PolyAudio
import PolyCore
import PolyMedia
import PolyNet
import PolySession
import PolySignaling
import Synchronization
import URLSessionSupport

/// What one call counted up to a moment.
struct CallCounters {
    /// When the counters were read (the middle of the hop onto the loop) and half that hop's length.
    var at = Instant.zero
    var uncertainty: Duration = .zero
    var sent: UInt64 = 0
    var received: UInt64 = 0
    var lost: Int64 = 0
    var concealed: UInt64 = 0
    var samples: UInt64 = 0
    var frames = 0
    var audible = 0
}

final class LoadCall: Sendable {
    /// The call's number in the run (its seed for the soak's lifetimes).
    let index: Int
    let transport: MediaTransport
    let sink: CountingSink
    let client: BridgeClient
    let events: EventsSocket

    private init(
        index: Int, transport: MediaTransport, sink: CountingSink, client: BridgeClient, events: EventsSocket
    ) {
        self.index = index
        self.transport = transport
        self.sink = sink
        self.client = client
        self.events = events
    }

    final class Connected: Sendable {
        let flag = Atomic<Bool>(false)
    }

    /// Provisions, connects, opens the events socket, waits for media, pulls the agent's line.
    static func start(
        baseURL: URL, token: String, codec: CodecSettings, encoderComplexity: Int, timeStretch: Bool,
        source: any AudioFrameSource, index: Int, loop: EventLoop, keep: Bool
    ) async throws -> LoadCall {
        let client = BridgeClient(
            configuration: .init(baseURL: baseURL, webCallingToken: token), transport: URLSessionTransport())
        let call = try await client.provision(mode: "echo")
        let sink = CountingSink(keep: keep)
        let connected = Connected()
        var configuration = MediaEndpointConfiguration(
            role: .client, codec: codec, certificate: try DTLSCertificate.shared())
        configuration.cname = "load-\(index)"
        // Files out at the client's rate too (the bridge's audio is wideband): decoding skips resampling to 48 kHz.
        configuration.playoutSampleRate = codec.sampleRate
        configuration.codec.complexity = encoderComplexity
        if !timeStretch { configuration.jitterBuffer.maximumStretchRatio = 0 }
        let transport = try MediaTransport(
            configuration: configuration, loop: loop,
            source: source, sink: sink,
            onEvent: { event in if event == .connected { connected.flag.store(true, ordering: .relaxed) } })
        do {
            let answer = try await client.connect(offerSDP: try await transport.createOffer())
            try await transport.applyAnswer(answer)
            guard let eventsURL = call.eventsURL else { throw BenchError("no eventsUrl") }
            let events = try EventsSocket(
                configuration: .init(url: try BridgeURLs.webSocketURL(for: eventsURL), token: call.token))
            let deadline = ContinuousClock.now + .seconds(20)
            while !connected.flag.load(ordering: .relaxed) {
                guard ContinuousClock.now < deadline else { throw BenchError("media did not connect in 20 s") }
                try await Task.sleep(for: .milliseconds(20))
            }
            // 409 until the bridge has seen media connected.
            var offer: String?
            while offer == nil {
                do { offer = try await client.pull() } catch {
                    guard ContinuousClock.now < deadline else { throw error }
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            try await client.renegotiate(answerSDP: try await transport.applyOffer(offer!))
            return LoadCall(index: index, transport: transport, sink: sink, client: client, events: events)
        } catch {
            await transport.close()
            throw error
        }
    }

    func counters() async -> CallCounters {
        let before = Instant.now()
        let stats = await transport.stats()
        let (frames, audible) = sink.counts
        let after = Instant.now()
        let half = (after - before) / 2
        return CallCounters(
            at: before + half, uncertainty: half, sent: stats.outboundRtp.packetsSent,
            received: stats.inboundRtp.packetsReceived,
            lost: stats.inboundRtp.packetsLost, concealed: stats.inboundRtp.concealedSamples,
            samples: stats.inboundRtp.totalSamplesReceived, frames: frames, audible: audible)
    }

    /// Hangs up (DELETE: the bridge ends the call at once) and closes media and the events socket.
    func close() async {
        await client.hangUp()
        await transport.close()
        events.close()
    }
}
