import Foundation
import PolyAudio
import PolyCore
import PolyNet
import PolySession
import PolySignaling
import PolyVoiceTesting
import Synchronization
import Testing
import URLSessionSupport

@testable import PolyVoiceBridge

/// The sans-IO routing table of the shared media port.
@Suite struct MediaPortDemuxTests {
    static let client = TransportAddress(ip: .loopbackV4, port: 40000)
    static let other = TransportAddress(ip: .loopbackV4, port: 40001)

    static func bindingRequest(username: String?) -> [UInt8] {
        var generator = SeededRandom(seed: 7)
        return STUNMessage(
            messageClass: .request, transactionID: .random(using: &generator),
            attributes: username.map { [.username($0), .priority(1)] } ?? [.priority(1)]
        ).encoded(integrityKey: Array("password".utf8))
    }

    static let rtp: [UInt8] = [0x80, 111, 0, 1] + [UInt8](repeating: 0, count: 30)

    func route(_ demux: MediaPortDemux, _ bytes: [UInt8], from: TransportAddress = client) -> MediaPortDemux.Route {
        bytes.withUnsafeBytes { demux.route($0, from: from) }
    }

    @Test func bindingRequestsGoToTheCallTheirUfragNames() {
        var demux = MediaPortDemux()
        demux.setUfrag("bridgeA", for: 1)
        demux.setUfrag("bridgeB", for: 2)
        #expect(route(demux, Self.bindingRequest(username: "bridgeA:clientA")) == .call(1))
        #expect(route(demux, Self.bindingRequest(username: "bridgeB:clientB"), from: Self.other) == .call(2))
        #expect(route(demux, Self.bindingRequest(username: "nobody:clientA")) == .drop(.unknownUfrag))
    }

    @Test func mediaFollowsTheAddressOfASuccessfulCheck() {
        var demux = MediaPortDemux()
        demux.setUfrag("bridgeA", for: 1)
        #expect(route(demux, Self.rtp) == .drop(.unknownSource))
        demux.checkSucceeded(call: 1, remote: Self.client)
        #expect(route(demux, Self.rtp) == .call(1))
        #expect(route(demux, [22, 254, 253] + [UInt8](repeating: 0, count: 20)) == .call(1))  // DTLS
        #expect(route(demux, Self.rtp, from: Self.other) == .drop(.unknownSource))
        // A check of an unknown call maps nothing.
        demux.checkSucceeded(call: 9, remote: Self.other)
        #expect(route(demux, Self.rtp, from: Self.other) == .drop(.unknownSource))
        demux.remove(call: 1)
        #expect(route(demux, Self.rtp) == .drop(.unknownSource))
        #expect(route(demux, Self.bindingRequest(username: "bridgeA:clientA")) == .drop(.unknownUfrag))
    }

    @Test func iceRestartMapsTheNewUfragAndKeepsThePreviousUntilTheNext() {
        var demux = MediaPortDemux()
        demux.setUfrag("gen1", for: 1)
        demux.setUfrag("gen2", for: 1)
        #expect(route(demux, Self.bindingRequest(username: "gen2:c")) == .call(1))
        #expect(route(demux, Self.bindingRequest(username: "gen1:c")) == .call(1))
        demux.setUfrag("gen3", for: 1)
        #expect(route(demux, Self.bindingRequest(username: "gen1:c")) == .drop(.unknownUfrag))
        #expect(route(demux, Self.bindingRequest(username: "gen3:c")) == .call(1))
        // The client moved: the check from the new address remaps it; a second call may reuse the old one.
        demux.checkSucceeded(call: 1, remote: Self.other)
        #expect(route(demux, Self.rtp, from: Self.other) == .call(1))
        demux.setUfrag("x", for: 2)
        demux.checkSucceeded(call: 2, remote: Self.client)
        #expect(route(demux, Self.rtp, from: Self.client) == .call(2))
    }

    @Test func garbageIsDroppedWithoutTrustingLengths() {
        var demux = MediaPortDemux()
        demux.setUfrag("bridgeA", for: 1)
        demux.checkSucceeded(call: 1, remote: Self.client)
        let valid = Self.bindingRequest(username: "bridgeA:clientA")
        // STUN-looking datagrams that lie about their length, or are cut anywhere, never route by ufrag.
        for cut in 0..<valid.count {
            let route = route(demux, Array(valid.prefix(cut)), from: Self.other)
            #expect(route != .call(1), "cut at \(cut)")
        }
        var lying = valid
        lying[3] = 0xFC  // message length far beyond the datagram
        #expect(route(demux, lying, from: Self.other) == .drop(.malformed))
        #expect(route(demux, [0, 1, 0, 0], from: Self.other) == .drop(.malformed))
        #expect(route(demux, Self.bindingRequest(username: nil), from: Self.other) == .drop(.malformed))
        #expect(route(demux, Self.bindingRequest(username: "no-colon"), from: Self.other) == .drop(.malformed))
        #expect(route(demux, [], from: Self.other) == .drop(.unknownSource))
        var random = SeededRandom(seed: 42)
        for _ in 0..<2000 {
            let length = Int(random.next() % 200)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if !bytes.isEmpty, random.next() % 2 == 0 { bytes[0] = 0 }  // half of them look like STUN
            #expect(route(demux, bytes, from: Self.other) != .call(1))
        }
        let success: [UInt8] = [0x01, 0x01, 0, 0, 0x21, 0x12, 0xA4, 0x42]
        #expect(success.withUnsafeBytes { MediaPortDemux.isBindingSuccess($0) })
        #expect(!success.prefix(5).withUnsafeBytes { MediaPortDemux.isBindingSuccess($0) })
        #expect(!([0x01, 0x11] + success.dropFirst(2)).withUnsafeBytes { MediaPortDemux.isBindingSuccess($0) })
    }
}

/// The shared port's shell on real sockets: links, ufrags, the mapping made by a success response.
@Suite(.serialized) struct SharedMediaPortTests {
    final class Received: Sendable {
        let datagrams = Locked<[[UInt8]]>([])
    }

    /// Polls the port's counters until `condition` holds (5 s at most).
    static func counters(
        of port: SharedMediaPort, until condition: (SharedMediaPortCounters) -> Bool
    ) async -> Bool {
        for _ in 0..<500 {
            if condition(await port.counters()) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    @Test func routesPerLinkAndCountsWhatItDrops() async throws {
        let port = try SharedMediaPort(bindingTo: TransportAddress(ip: .loopbackV4, port: 0))
        defer { port.close() }
        let links = [port.makeLink(), port.makeLink()]
        let received = [Received(), Received()]
        let opened = Locked(false)
        port.loop.execute {
            for (index, link) in links.enumerated() {
                let box = received[index]
                link.open { datagram, _ in box.datagrams.withLock { $0.append(Array(datagram)) } }
                link.setLocalUfrag("call\(index)")
            }
            opened.withLock { $0 = true }
        }
        #expect(await eventually { opened.withLock { $0 } })
        let client = try UDPSocket(bindingTo: TransportAddress(ip: .loopbackV4, port: 0))
        defer { client.close() }
        func send(_ bytes: [UInt8]) throws { try client.send(bytes, to: port.localAddress) }

        try send(MediaPortDemuxTests.bindingRequest(username: "call1:c"))
        try send(MediaPortDemuxTests.bindingRequest(username: "stranger:c"))
        try send([0xDE, 0xAD, 0xBE, 0xEF])
        try send([0x00, 0x01, 0xFF, 0xFF, 0x21, 0x12, 0xA4, 0x42])  // STUN header claiming 65535 bytes
        try send(MediaPortDemuxTests.rtp)  // before any check succeeded
        #expect(await Self.counters(of: port) { $0.droppedUnknownSource >= 2 })
        var counters = await port.counters()
        #expect(counters.delivered == 1)
        #expect(counters.droppedUnknownUfrag == 1)
        #expect(counters.droppedMalformed == 1)
        #expect(received[1].datagrams.withLock { $0.count } == 1)
        #expect(received[0].datagrams.withLock { $0.isEmpty })

        // Call 1 answers the check: its media now comes from the client's address, and the answer arrives.
        let success: [UInt8] = [0x01, 0x01, 0, 0, 0x21, 0x12, 0xA4, 0x42] + [UInt8](repeating: 7, count: 12)
        let clientAddress = client.localAddress
        port.loop.execute { success.withUnsafeBytes { links[1].send($0, to: clientAddress) } }
        var buffer = [UInt8](repeating: 0, count: 1500)
        var answered = false
        for _ in 0..<200 where !answered {
            answered = buffer.withUnsafeMutableBytes { (try? client.receive(into: $0))?.count } == success.count
            if !answered { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(answered)
        try send(MediaPortDemuxTests.rtp)
        #expect(await eventually { received[1].datagrams.withLock { $0.count } == 2 })
        #expect(received[0].datagrams.withLock { $0.isEmpty })

        // A closed link gets nothing more.
        port.loop.execute { links[1].close() }
        try send(MediaPortDemuxTests.rtp)
        #expect(await Self.counters(of: port) { $0.droppedUnknownSource >= 3 })
        counters = await port.counters()
        #expect(counters.delivered == 2)
    }
}

/// Two echo calls through one bridge media port, each hearing only itself; an ICE restart on the port.
@Suite(.serialized) struct SharedPortCallTests {
    final class Flags: Sendable {
        let connected = Atomic<Int>(0)
    }

    struct Caller {
        let client: BridgeClient
        let transport: MediaTransport
        let sink: RecordingSink
        let flags: Flags
        let answer: String
    }

    static func tone(_ frequency: Double, seconds: Int) -> [Int16] {
        (0..<(48000 * seconds)).map { Int16(8000 * sin(2 * Double.pi * frequency * Double($0) / 48000)) }
    }

    static func call(_ bridgePort: Int, frequency: Double) async throws -> Caller {
        let client = BridgeClient(
            configuration: .init(
                baseURL: URL(string: "http://127.0.0.1:\(bridgePort)/")!, webCallingToken: TestHarness.webToken,
                retry: .none),
            transport: URLSessionTransport())
        _ = try await client.provision(mode: "echo")
        let sink = RecordingSink()
        let flags = Flags()
        let transport = try MediaTransport(
            configuration: MediaEndpointConfiguration(role: .client, certificate: try DTLSCertificate.shared()),
            source: SampleBufferSource(samples: tone(frequency, seconds: 20)), sink: sink,
            onEvent: { event in if event == .connected { flags.connected.add(1, ordering: .relaxed) } })
        let answer = try await client.connect(offerSDP: try await transport.createOffer())
        try await transport.applyAnswer(answer)
        #expect(await eventually { flags.connected.load(ordering: .relaxed) >= 1 })
        var pullOffer: String?
        let deadline = ContinuousClock.now + .seconds(5)
        while pullOffer == nil, ContinuousClock.now < deadline {
            do { pullOffer = try await client.pull() } catch { try await Task.sleep(for: .milliseconds(50)) }
        }
        try await client.renegotiate(answerSDP: try await transport.applyOffer(try #require(pullOffer)))
        return Caller(client: client, transport: transport, sink: sink, flags: flags, answer: answer)
    }

    /// Windows of the last `seconds` in which `frequency` clearly dominates `other`.
    static func windows(_ sink: RecordingSink, seconds: Int, carrying frequency: Double, not other: Double) -> Int {
        let tail = Array(sink.samples.suffix(48000 * seconds))
        return stride(from: 0, to: tail.count - 4800, by: 4800).filter { start in
            let window = Array(tail[start..<(start + 4800)])
            return LevelMeter.measure(window).rmsDBFS > -30
                && ToneAnalysis.power(window, at: frequency, sampleRate: 48000)
                    > 10 * ToneAnalysis.power(window, at: other, sampleRate: 48000)
        }.count
    }

    static func candidatePorts(_ sdp: String) -> [String] {
        sdp.split(separator: "\r\n").filter { $0.hasPrefix("a=candidate:") }.map {
            let fields = $0.split(separator: " ")
            return fields.count > 5 ? "\(fields[4]):\(fields[5])" : ""
        }
    }

    @Test func twoCallsShareOnePortAndSurviveAnICERestart() async throws {
        let bridge = Bridge(
            configuration: BridgeConfiguration(
                tokens: [TestHarness.webToken], agent: .echo(delayMilliseconds: 0), mediaPort: 0,
                media: .transport(), log: BridgeLog(level: .warn)))
        let port = try bridge.start()
        defer { bridge.stop() }
        let media = try #require(bridge.mediaAddress)
        let first = try await Self.call(port, frequency: 440)
        let second = try await Self.call(port, frequency: 660)
        defer {
            Task {
                await first.transport.close()
                await second.transport.close()
            }
        }
        // Both answers name the one shared port.
        #expect(Self.candidatePorts(first.answer) == ["\(media.ip):\(media.port)"])
        #expect(Self.candidatePorts(second.answer) == ["\(media.ip):\(media.port)"])

        try await Task.sleep(for: .seconds(2))
        // Each caller hears its own tone back, never the other's (a third of the windows: see EndToEndTests).
        #expect(Self.windows(first.sink, seconds: 1, carrying: 440, not: 660) >= 3)
        #expect(Self.windows(second.sink, seconds: 1, carrying: 660, not: 440) >= 3)
        #expect(Self.windows(first.sink, seconds: 2, carrying: 660, not: 440) == 0)
        #expect(Self.windows(second.sink, seconds: 2, carrying: 440, not: 660) == 0)

        // ICE restart of the first call: a new bridge ufrag on the same port, audio keeps coming.
        let restartAnswer = try await first.client.iceRestart(offerSDP: try await first.transport.restartICE())
        try await first.transport.applyAnswer(restartAnswer)
        let ufrag = { (sdp: String) in sdp.split(separator: "\r\n").first { $0.hasPrefix("a=ice-ufrag:") } }
        #expect(ufrag(restartAnswer) != ufrag(first.answer))
        #expect(Set(Self.candidatePorts(restartAnswer)) == ["\(media.ip):\(media.port)"])
        let heard = first.sink.samples.count
        try await Task.sleep(for: .seconds(2))
        #expect(first.sink.samples.count > heard)
        #expect(Self.windows(first.sink, seconds: 1, carrying: 440, not: 660) >= 3)
        #expect(Self.windows(second.sink, seconds: 1, carrying: 660, not: 440) >= 3)
        #expect(bridge.activeCalls == 2)
    }

    @Test func advertiseHostAndPortGoesExactlyIntoTheCandidates() async throws {
        let bridge = Bridge(
            configuration: BridgeConfiguration(
                tokens: [TestHarness.webToken], agent: .echo(delayMilliseconds: 0), advertise: "127.0.0.9:45678",
                mediaPort: 0, media: .transport(), log: BridgeLog(level: .warn)))
        let port = try bridge.start()
        defer { bridge.stop() }
        let client = BridgeClient(
            configuration: .init(
                baseURL: URL(string: "http://127.0.0.1:\(port)/")!, webCallingToken: TestHarness.webToken,
                retry: .none),
            transport: URLSessionTransport())
        _ = try await client.provision(mode: "echo")
        let transport = try MediaTransport(
            configuration: MediaEndpointConfiguration(role: .client, certificate: try DTLSCertificate.shared()))
        defer { Task { await transport.close() } }
        let answer = try await client.connect(offerSDP: try await transport.createOffer())
        #expect(Self.candidatePorts(answer) == ["127.0.0.9:45678"])
        #expect(bridge.mediaAddress?.port != 45678)
    }
}
