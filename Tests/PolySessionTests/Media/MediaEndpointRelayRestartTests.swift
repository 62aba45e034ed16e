// What an ICE restart does to a client's TCP/TLS TURN relays, sans-IO: the stream may have left from an
// address that is gone, so a new one is opened and allocates; the old one keeps its place until the restart
// selects a pair (media may still be on it), then is closed.
import PolyCore
import PolyNet
import Testing

@testable import PolySession

@Suite("MediaEndpoint TURN relays across an ICE restart (sans-IO)")
struct MediaEndpointRelayRestartTests {
    static let server = TransportAddress("192.0.2.7:3478")!

    /// A TCP relay whose server never answers: the call connects directly, the relay stays pending.
    static func call() throws -> MediaCall {
        let client = TURNClientConfiguration(
            server: server, serverName: "turn.example.org:3478", transport: .udp, username: "user",
            password: "secret-password", randomSeed: 0)
        return try MediaCall(
            signal: Signals.tone(hertz: 440, seconds: 20),
            clientTURNServers: [TURNRelayServer(client: client, relayProtocol: .tcp, hostName: "turn.example.org")])
    }

    static func opened(_ outputs: [MediaOutput]) -> [Int] {
        outputs.compactMap { if case .openStream(let stream) = $0 { stream.id } else { nil } }
    }

    static func closed(_ outputs: [MediaOutput]) -> [Int] {
        outputs.compactMap { if case .closeStream(let id) = $0 { id } else { nil } }
    }

    static func allocates(on stream: Int, in outputs: [MediaOutput]) -> Int {
        outputs.filter { output in
            guard case .streamTransmit(let bytes, stream) = output, let message = try? STUNMessage(decoding: bytes)
            else { return false }
            return message.method == .allocate
        }.count
    }

    @Test("an address change and ICE restart: a new stream allocates, the old one closes once the new pair is selected")
    func restartReplacesTheStream() throws {
        let call = try Self.call()
        try call.connect()
        try call.pull()
        call.run(for: .seconds(1))
        #expect(Self.opened(call.client.streamOutputs) == [0])
        #expect(Self.allocates(on: 0, in: call.client.streamOutputs) == 1)

        let newAddress = TransportAddress("10.0.0.9:5002")!
        call.network.changeAddress(
            of: call.clientHost, from: MediaCall.clientAddress, to: newAddress, at: call.scheduler.now)
        call.run(for: .milliseconds(100))
        let restartedAt = call.scheduler.now
        try call.client.endpoint.restartICE(at: restartedAt)
        call.client.collect(at: restartedAt)
        // A new stream (a new id: the old one may still report its end) carries a new Allocate.
        #expect(Self.opened(call.client.streamOutputs) == [0, 1])
        #expect(Self.allocates(on: 1, in: call.client.streamOutputs) == 1)
        #expect(Self.closed(call.client.streamOutputs).isEmpty)

        // Gathering waits for the new allocation (up to its cap), then the restart offer goes out.
        call.scheduler.run(until: restartedAt + .seconds(3)) {
            call.client.first(.gatheringComplete, after: restartedAt) != nil
        }
        let offer = try call.client.endpoint.createOffer(at: call.scheduler.now)
        let answer = try call.bridge.endpoint.applyOffer(offer, at: call.scheduler.now)
        try call.client.endpoint.applyAnswer(answer, at: call.scheduler.now)
        call.run(for: .seconds(3))
        #expect(call.client.endpoint.selectedPair?.local == newAddress)
        #expect(Self.closed(call.client.streamOutputs) == [0])
        #expect(call.client.failure == nil && call.bridge.failure == nil)
        // The retired relay's end is no warning: only live relays report failures.
        #expect(!call.client.events.contains { if case .relayFailed = $0.event { true } else { false } })
    }
}
