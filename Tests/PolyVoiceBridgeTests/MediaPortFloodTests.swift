import Foundation
import PolyCore
import PolyNet
import PolySession
import PolySignaling
import PolyVoiceTesting
import Synchronization
import Testing
import URLSessionSupport

@testable import PolyVoiceBridge

/// A UDP flood on the bridge's shared media port (issue 19) while echo calls run through it: random bytes,
/// binding requests naming no call, DTLS ClientHellos and SRTP from unknown addresses, and SRTP with bad
/// tags spoofed from a live caller's own address (a raw socket: needs root, as CI has). The calls must lose
/// no packet, and the port's and the SRTP counters must account for every flooded datagram by category.
///
/// `make test` runs 2.5 s at 20,000 datagrams/s with 4 calls; `Benchmarks/MediaFlood/run.sh` runs the same
/// test for 10 s with 20 calls (POLYVOICE_FLOOD_SECONDS, POLYVOICE_FLOOD_CALLS, POLYVOICE_FLOOD_RATE) and
/// prints its figures (POLYVOICE_FLOOD_REPORT=1).
@Suite(.serialized) struct MediaPortFloodTests {
    static let environment = ProcessInfo.processInfo.environment
    static let seconds = environment["POLYVOICE_FLOOD_SECONDS"].flatMap(Double.init) ?? 2.5
    static let calls = environment["POLYVOICE_FLOOD_CALLS"].flatMap(Int.init) ?? 4
    static let rate = environment["POLYVOICE_FLOOD_RATE"].flatMap(Int.init) ?? 20_000

    struct Caller {
        let transport: MediaTransport
        /// The caller's own socket address (its only host candidate, on 127.0.0.1).
        let address: TransportAddress
    }

    static func call(_ bridgePort: Int, loop: EventLoop, seconds: Int) async throws -> Caller {
        let client = BridgeClient(
            configuration: .init(
                baseURL: URL(string: "http://127.0.0.1:\(bridgePort)/")!, webCallingToken: TestHarness.webToken,
                retry: .none),
            transport: URLSessionTransport())
        _ = try await client.provision(mode: "echo")
        let connected = Atomic<Bool>(false)
        let transport = try MediaTransport(
            configuration: MediaEndpointConfiguration(role: .client, certificate: try DTLSCertificate.shared()),
            loop: loop, source: SampleBufferSource(samples: SharedPortCallTests.tone(440, seconds: seconds)),
            sink: RecordingSink(),
            onEvent: { event in if event == .connected { connected.store(true, ordering: .relaxed) } })
        let offer = try await transport.createOffer()
        let answer = try await client.connect(offerSDP: offer)
        try await transport.applyAnswer(answer)
        #expect(await eventually(.seconds(10)) { connected.load(ordering: .relaxed) })
        var pullOffer: String?
        let deadline = ContinuousClock.now + .seconds(10)
        while pullOffer == nil, ContinuousClock.now < deadline {
            do { pullOffer = try await client.pull() } catch { try await Task.sleep(for: .milliseconds(50)) }
        }
        try await client.renegotiate(answerSDP: try await transport.applyOffer(try #require(pullOffer)))
        let host = try #require(SharedPortCallTests.candidatePorts(offer).first)
        return Caller(transport: transport, address: try #require(TransportAddress(host)))
    }

    /// The value of one exposition line (`name{labels} value`), 0 when absent.
    static func metric(_ text: String, _ series: String) -> UInt64 {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return UInt64(line.dropFirst(series.count + 1)) ?? 0
        }
        return 0
    }

    static func dropped(_ text: String, _ reason: String, _ kind: String) -> UInt64 {
        metric(text, "polyvoice_bridge_media_port_datagrams_dropped_total{reason=\"\(reason)\",kind=\"\(kind)\"}")
    }

    @Test func callsLoseNothingAndTheCountersExplainEveryDroppedDatagram() async throws {
        try #require(
            geteuid() == 0,
            "this test spoofs SRTP from a caller's own address with a raw socket and needs root (CI runs as root)")
        let bridge = Bridge(
            configuration: BridgeConfiguration(
                tokens: [TestHarness.webToken], agent: .echo(delayMilliseconds: 0), mediaPort: 0,
                media: .transport(), log: BridgeLog(level: .error)))
        let port = try bridge.start()
        defer { bridge.stop() }
        let media = try #require(bridge.mediaAddress)
        // The callers run on a loop of their own: the bridge's shared port keeps `EventLoop.shared` to itself.
        let clientLoop = try EventLoop(name: "flood callers")
        let callSeconds = Int(Self.seconds) + 12
        var callers: [Caller] = []
        for _ in 0..<Self.calls { callers.append(try await Self.call(port, loop: clientLoop, seconds: callSeconds)) }
        defer { for caller in callers { Task { await caller.transport.close() } } }
        try await Task.sleep(for: .seconds(1))  // media flowing both ways

        let before = bridge.metricsText
        #expect(Self.metric(before, "polyvoice_bridge_srtp_packets_dropped_total{reason=\"auth\"}") == 0)
        var received: [UInt64] = []
        for caller in callers { received.append(await caller.transport.stats().inboundRtp.packetsReceived) }

        let flooder = try MediaPortFlooder(target: media, spoofing: callers.map(\.address))
        let sent = try await flooder.run(rate: Self.rate, seconds: Self.seconds)
        try await Task.sleep(for: .milliseconds(500))  // the last calls' packets and the kernel queue drain

        // Every call kept its audio: no sequence gap at either end, and packets kept arriving throughout.
        var lost: [Int64] = []
        var heard: [UInt64] = []
        var concealed: [UInt64] = []
        for (index, caller) in callers.enumerated() {
            let stats = await caller.transport.stats()
            lost.append(stats.inboundRtp.packetsLost)
            heard.append(stats.inboundRtp.packetsReceived - received[index])
            concealed.append(stats.inboundRtp.concealedSamples)
        }
        let expected = UInt64(Self.seconds * 50)
        #expect(lost.allSatisfy { $0 == 0 }, "callers lost packets: \(lost)")
        #expect(heard.allSatisfy { $0 >= expected * 9 / 10 }, "packets heard during the flood: \(heard)")

        // The bridge's counters say what was dropped, category by category, exactly as sent. SRTP stats are
        // copied once a second: wait for them.
        var text = bridge.metricsText
        for _ in 0..<40 {
            text = bridge.metricsText
            if Self.metric(text, "polyvoice_bridge_srtp_packets_dropped_total{reason=\"auth\"}") >= sent.spoofedSRTP {
                break
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(Self.metric(text, "polyvoice_bridge_rtp_packets_lost_total") == 0)
        #expect(Self.dropped(text, "unknown_source", "other") == sent.randomBytes)
        #expect(Self.dropped(text, "unknown_ufrag", "stun") == sent.unknownUfragSTUN)
        #expect(Self.dropped(text, "unknown_source", "dtls") == sent.dtlsClientHellos)
        #expect(Self.dropped(text, "unknown_source", "rtp") == sent.unknownSourceSRTP)
        #expect(Self.dropped(text, "malformed", "stun") == 0)
        #expect(
            Self.metric(text, "polyvoice_bridge_srtp_packets_dropped_total{reason=\"auth\"}") == sent.spoofedSRTP)
        #expect(Self.metric(text, "polyvoice_bridge_srtp_packets_dropped_total{reason=\"replay\"}") == 0)
        #expect(bridge.activeCalls == Self.calls)
        #expect(sent.total >= UInt64(Double(Self.rate) * Self.seconds * 0.95), "the flooder fell behind: \(sent)")

        if Self.environment["POLYVOICE_FLOOD_REPORT"] == "1" {
            let figures: [String: Any] = [
                "calls": Self.calls, "seconds": Self.seconds, "rate_target": Self.rate,
                "rate_achieved": Double(sent.total) / sent.elapsedSeconds, "sent_total": sent.total,
                "sent_random": sent.randomBytes, "sent_stun_unknown_ufrag": sent.unknownUfragSTUN,
                "sent_dtls_client_hello": sent.dtlsClientHellos, "sent_srtp_unknown_source": sent.unknownSourceSRTP,
                "sent_srtp_spoofed_known_peer": sent.spoofedSRTP,
                "dropped_unknown_source_other": Self.dropped(text, "unknown_source", "other"),
                "dropped_unknown_ufrag": Self.dropped(text, "unknown_ufrag", "stun"),
                "dropped_unknown_source_dtls": Self.dropped(text, "unknown_source", "dtls"),
                "dropped_unknown_source_rtp": Self.dropped(text, "unknown_source", "rtp"),
                "srtp_auth_failures": Self.metric(
                    text, "polyvoice_bridge_srtp_packets_dropped_total{reason=\"auth\"}"),
                "caller_packets_lost": lost.reduce(0, +),
                "bridge_packets_lost": Self.metric(text, "polyvoice_bridge_rtp_packets_lost_total"),
                "caller_packets_heard_min": heard.min() ?? 0, "caller_packets_expected": expected,
                "caller_concealed_samples_max": concealed.max() ?? 0,
            ]
            let json = try JSONSerialization.data(withJSONObject: figures, options: [.sortedKeys])
            print("RESULT_JSON \(String(decoding: json, as: UTF8.self))")
        }
    }
}
